/**
 * BasicAuth over real sockets (and curl, the real client of `-u user:password`): the challenge,
 * good and bad credentials, a verify callback, and every malformed header as a 401, never a 500.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BasicAuth, type ServerHandle, SubRouter, Webfw } from "../../src/index.ts";
import { testWithProgram } from "../helpers/system-program.ts";

let server: ServerHandle;
const verified: string[] = [];

beforeAll(async () => {
  const app = new Webfw(import.meta.path);
  app.configureAuthentication(
    new BasicAuth({ users: { ada: "s3cret", zoë: "pässwörd:with:colons" }, realm: 'Ops "area"' }),
  );
  app.get("/me", ({ identity }) => identity?.claims ?? null, { authRequired: true });
  app.get("/open", ({ identity }) => ({ sub: identity?.claims.sub ?? null }));
  const async = new SubRouter(import.meta.path, { prefix: "/async" });
  async.configureAuthentication(
    new BasicAuth({
      async verify(user, password) {
        verified.push(user);
        await Bun.sleep(1);
        return user === "grace" && password === "hopper";
      },
    }),
  );
  async.get("/me", ({ identity }) => identity?.claims ?? null, { authRequired: true });
  app.includeRouter(async);
  server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
});
afterAll(() => server.stop(true));

const basic = (credentials: string) => ({
  headers: { authorization: `Basic ${Buffer.from(credentials).toString("base64")}` },
});
const get = (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init);

describe("BasicAuth", () => {
  test("no credentials: 401 with a Basic challenge naming the realm and UTF-8", async () => {
    const response = await get("/me");
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe('Basic realm="Ops \\"area\\"", charset="UTF-8"');
  });

  test("good credentials: the user is identity.claims.sub; UTF-8 names and colons in passwords work", async () => {
    expect(await (await get("/me", basic("ada:s3cret"))).json()).toEqual({ sub: "ada" });
    expect(await (await get("/me", basic("zoë:pässwörd:with:colons"))).json()).toEqual({ sub: "zoë" });
    expect(await (await get("/open", basic("ada:s3cret"))).json()).toEqual({ sub: "ada" });
  });

  test("wrong password, unknown user, empty password: 401", async () => {
    for (const credentials of ["ada:wrong", "ada:", "bob:s3cret", ":s3cret", "ada:s3cret "]) {
      expect([credentials, (await get("/me", basic(credentials))).status]).toEqual([credentials, 401]);
    }
    // Not authenticated on a public route: anonymous, not refused.
    expect(await (await get("/open", basic("ada:wrong"))).json()).toEqual({ sub: null });
  });

  test("malformed headers are 401, never 500", async () => {
    const headers = [
      "Basic",
      "Basic ",
      "Basic !!!!",
      "Basic YWRh", // "ada": no colon
      "Basic YWRhOnMzY3JldA", // unpadded
      "Basic YWRhOnMzY3JldA===",
      `Basic ${Buffer.from([0x61, 0x3a, 0xff, 0xfe]).toString("base64")}`, // not UTF-8
      `Basic ${Buffer.from("ada:s3\u0001cret").toString("base64")}`, // a control character
      "Basic YWRhOnMzY3JldA== extra",
      "Bearer YWRhOnMzY3JldA==",
      `Basic ${"A".repeat(8000)}`,
    ];
    for (const authorization of headers) {
      const response = await get("/me", { headers: { authorization } });
      expect([authorization.slice(0, 40), response.status]).toEqual([authorization.slice(0, 40), 401]);
      expect(response.headers.get("www-authenticate")).toStartWith("Basic ");
    }
    expect((await get("/me", { headers: { authorization: "basic YWRhOnMzY3JldA==" } })).status).toBe(200);
  });

  test("a verify callback decides (async); it is not called for malformed headers", async () => {
    verified.length = 0;
    expect(await (await get("/async/me", basic("grace:hopper"))).json()).toEqual({ sub: "grace" });
    expect((await get("/async/me", basic("grace:nope"))).status).toBe(401);
    expect((await get("/async/me", { headers: { authorization: "Basic %%%" } })).status).toBe(401);
    expect(verified).toEqual(["grace", "grace"]);
  });

  testWithProgram(
    "curl",
    "apt-get install curl",
    "curl -u is accepted; a wrong password is refused",
    async () => {
      // Spawned asynchronously: the server runs in this process and must keep answering.
      const curl = async (...args: string[]) =>
        new Response(Bun.spawn(["curl", "-s", ...args]).stdout).text();
      expect(JSON.parse(await curl("-u", "ada:s3cret", `${server.url}/me`))).toEqual({ sub: "ada" });
      expect(await curl("-o", "/dev/null", "-w", "%{http_code}", "-u", "ada:x", `${server.url}/me`)).toBe(
        "401",
      );
    },
  );

  test("mistakes are refused at construction", () => {
    expect(() => new BasicAuth({})).toThrow(TypeError);
    expect(() => new BasicAuth({ users: {}, verify: () => true })).toThrow(TypeError);
    expect(() => new BasicAuth({ users: { "a:b": "x" } })).toThrow(TypeError);
    expect(() => new BasicAuth({ users: { a: "x" }, realm: "bad\nrealm" })).toThrow(TypeError);
  });

  test("the generated OpenAPI document names http basic", async () => {
    const app = new Webfw(import.meta.path);
    app.configureAuthentication(new BasicAuth({ users: { ada: "x" } }));
    app.get("/me", () => "me", { authRequired: true });
    const document = (await (await app.request("/openapi.json")).json()) as {
      paths: Record<string, Record<string, { security?: unknown }>>;
      components: { securitySchemes: Record<string, { scheme: string }> };
    };
    expect(document.paths["/me"]?.get?.security).toEqual([{ basicAuth: [] }]);
    expect(document.components.securitySchemes.basicAuth?.scheme).toBe("basic");
  });
});
