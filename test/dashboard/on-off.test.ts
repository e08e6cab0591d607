/**
 * When the dashboard is on, and what it costs when off (docs/dashboard.md): off, none of its
 * modules beyond the option check and the mount is loaded and `/_webfw` is a 404; in production
 * it is served only when asked for, behind the app's authentication; bad options fail at once.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
  AuthenticationHandler,
  BearerGetter,
  Identity,
  type Request,
  type ServerHandle,
  Webfw,
} from "../../src/index.ts";
import { REPO, testEnv } from "../cli/helpers.ts";

class TokenAuth extends AuthenticationHandler {
  authenticate(request: Request): Identity | null {
    return this.tokenGetter.getToken(request) === "ops-token"
      ? new Identity({ claims: { user: "ops" } })
      : null;
  }
}

let server: ServerHandle | null = null;
afterEach(async () => {
  await server?.stop(true);
  server = null;
});

describe("dashboard off", () => {
  test("costs nothing: only options.ts and mount.ts are loaded, and /_webfw is not served", async () => {
    const probe = Bun.spawnSync([process.execPath, join(import.meta.dir, "fixtures/off-probe.ts")], {
      cwd: REPO,
      env: testEnv(),
    });
    expect(probe.exitCode).toBe(0);
    const result = JSON.parse(probe.stdout.toString().trim().split("\n").pop() as string);
    expect(result).toEqual({
      page: 404,
      hello: 200,
      loaded: ["src/dashboard/mount.ts", "src/dashboard/options.ts"],
    });
  });

  test("`dashboard: false` keeps it off even in development", async () => {
    const app = new Webfw(import.meta.path, { dev: true, dashboard: false });
    app.get("/", () => "hi");
    server = await app.start({ port: 0, host: "127.0.0.1" });
    expect((await fetch(`${server.url}/_webfw`)).status).toBe(404);
  });
});

describe("dashboard in production (`dashboard: true`)", () => {
  test("is served behind the app's authentication: 401 without a credential, the data with one", async () => {
    const app = new Webfw(import.meta.path, { dashboard: { path: "/ops/dashboard" } });
    app.configureAuthentication(new TokenAuth(new BearerGetter()));
    app.get("/work", () => "done");
    server = await app.start({ port: 0, host: "127.0.0.1" });
    expect((await fetch(`${server.url}/_webfw`)).status).toBe(404);
    for (const path of ["", "/dashboard.js", "/api/requests", "/api/routes", "/api/events"]) {
      const refused = await fetch(`${server.url}/ops/dashboard${path}`);
      expect(refused.status).toBe(401);
    }
    await fetch(`${server.url}/work`, { headers: { "x-request-id": "prod-1" } });
    const auth = { authorization: "Bearer ops-token" };
    const page = await fetch(`${server.url}/ops/dashboard`, { headers: auth });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script src="/ops/dashboard/dashboard.js"></script>');
    const list = (await (
      await fetch(`${server.url}/ops/dashboard/api/requests`, { headers: auth })
    ).json()) as {
      id: string;
      status: number;
    }[];
    expect(list.find((request) => request.id === "prod-1")?.status).toBe(200);
    const detail = (await (
      await fetch(`${server.url}/ops/dashboard/api/requests/prod-1`, { headers: auth })
    ).json()) as {
      spans: { name: string }[];
    };
    expect(detail.spans.map((span) => span.name)).toContain("GET /work");
  });

  test("without authentication configured, the start fails with a clear message", async () => {
    const app = new Webfw(import.meta.path, { dashboard: true });
    app.get("/", () => "hi");
    await expect(app.start({ port: 0, host: "127.0.0.1" })).rejects.toThrow(
      "GET /_webfw has authRequired but no authentication is configured",
    );
  });

  test("a route of the app under the dashboard's path stops the start", async () => {
    const app = new Webfw(import.meta.path, { dev: true });
    app.get("/_webfw/mine", () => "mine");
    await expect(app.start({ port: 0, host: "127.0.0.1" })).rejects.toThrow(
      "the dashboard's path /_webfw is taken by the app's route /_webfw/mine",
    );
  });

  test("bad options are refused when the app is made", () => {
    expect(() => new Webfw(import.meta.path, { dashboard: { path: "no-slash" } })).toThrow(
      "dashboard.path must be",
    );
    expect(() => new Webfw(import.meta.path, { dashboard: { path: "/trailing/" } })).toThrow(
      "dashboard.path must be",
    );
    expect(() => new Webfw(import.meta.path, { dashboard: { auth: "yes" as unknown as boolean } })).toThrow(
      "dashboard.auth must be a boolean",
    );
    expect(() => new Webfw(import.meta.path, { dashboard: 3 as unknown as boolean })).toThrow(
      "dashboard must be a boolean or an object",
    );
  });
});
