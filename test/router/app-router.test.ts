/**
 * `app.router(prefix, options)` and `SubRouter.typed<T>()` at run time (issue #31): the router
 * is included where it is made, under every enclosing prefix, and each option does what its
 * method does (`inject`, `configureAuthentication`, `rateLimit`). Over HTTP on port 0.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  AuthenticationHandler,
  Identity,
  type Request,
  type ServerHandle,
  SubRouter,
  Webfw,
} from "../../src/index.ts";

class HeaderAuth extends AuthenticationHandler<{ sub: string }> {
  constructor(private readonly header: string) {
    super();
  }
  override authenticate(request: Request): Identity<{ sub: string }> | null {
    const value = request.headers.get(this.header);
    return value ? new Identity({ claims: { sub: value } }) : null;
  }
}

let server: ServerHandle;
beforeAll(async () => {
  const app = new Webfw<{ router: { scope: string } }>(import.meta.path);
  app.configureAuthentication(new HeaderAuth("x-app-user"));
  const api = app.router("/api/", { dependencies: { scope: "api" } });
  api.beforeRequest("/only", (request) => {
    request.headers.set("x-seen", "yes");
  });
  api.get(
    "/only",
    ({ headers, routerDependencies }) => `${headers.get("x-seen")} ${routerDependencies.scope}`,
  );
  api.get("/other", ({ headers }) => String(headers.get("x-seen")));
  const staff = api.router("/staff", { authentication: new HeaderAuth("x-staff") });
  staff.get("/me", ({ identity }) => identity?.claims.sub ?? "nobody", { authRequired: true });
  const Typed = SubRouter.typed<{ router: { scope: string } }>();
  const own = new Typed(import.meta.path, { prefix: "/own" });
  expect(own).toBeInstanceOf(SubRouter);
  own.inject({ scope: "own" });
  own.get("/", ({ routerDependencies }) => routerDependencies.scope);
  app.includeRouter(own);
  // One set of router options (docs/options.md#router-options): `new SubRouter` takes what `app.router` takes.
  const made = new SubRouter<{ router: { scope: string } }, "/made">(import.meta.path, {
    prefix: "/made",
    dependencies: { scope: "made" },
    authentication: new HeaderAuth("x-made"),
    rateLimit: { limit: 2, windowMs: 60_000 },
  });
  made.get("/", ({ routerDependencies, identity }) => `${routerDependencies.scope} ${identity?.claims.sub}`, {
    authRequired: true,
  });
  app.includeRouter(made);
  server = await app.start({ port: 0, host: "127.0.0.1", handleSignals: false, accessLog: false, argv: [] });
});
afterAll(() => server.stop(true));

const get = async (path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${server.url}${path}`, { headers });
  return [response.status, await response.text()];
};

describe("new SubRouter takes the same options as app.router", () => {
  test("dependencies, authentication and rateLimit given to the constructor", async () => {
    expect((await get("/made"))[0]).toBe(401);
    expect(await get("/made", { "x-made": "ada" })).toEqual([200, "made ada"]);
    expect((await get("/made", { "x-made": "ada" }))[0]).toBe(429);
  });
});

describe("app.router", () => {
  test("routes and path middlewares under the prefix, with the dependencies option", async () => {
    expect(await get("/api/only")).toEqual([200, "yes api"]);
    expect(await get("/api/other")).toEqual([200, "null"]);
    expect((await get("/only"))[0]).toBe(404);
  });

  test("a nested router's authentication option overrides the app's", async () => {
    expect(await get("/api/staff/me", { "x-staff": "ada" })).toEqual([200, "ada"]);
    expect((await get("/api/staff/me", { "x-app-user": "ada" }))[0]).toBe(401);
  });

  test("SubRouter.typed is SubRouter", async () => {
    expect(await get("/own")).toEqual([200, "own"]);
  });

  test("two routers with one prefix share the route table: a duplicate route is refused", () => {
    const app = new Webfw(import.meta.path);
    app.router("/z").get("/", () => "");
    expect(() => app.router("/z").get("/", () => "")).toThrow("route GET /z is already registered");
  });
});
