import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  AuthenticationHandler,
  BearerGetter,
  Identity,
  type Request,
  SubRouter,
  TokenGetter,
  Webfw,
} from "../../src/index.ts";
import { CLIENTS, type Client } from "../helpers/clients.ts";

class SyncAuth extends AuthenticationHandler {
  authenticate(request: Request): Identity | null {
    const token = this.tokenGetter.getToken(request);
    return token === "good" ? new Identity({ claims: { user: "sync" } }) : null;
  }
}

class AsyncAuth extends AuthenticationHandler {
  async authenticate(request: Request): Promise<Identity | null> {
    await Bun.sleep(1);
    const token = this.tokenGetter.getToken(request);
    if (token === "explode") throw new Error("token parser crashed");
    return token === "admin-token" ? new Identity({ claims: { user: "admin" } }) : null;
  }
}

class ApiKeyGetter extends TokenGetter {
  getToken(request: Request): string | null {
    return request.headers.get("x-api-key");
  }
}

function authApp(): Webfw {
  const app = new Webfw(import.meta.path);
  app.configureAuthentication(new SyncAuth(new BearerGetter()));
  app.get("/open", ({ identity }) => ({ identity: identity?.claims ?? null }));
  app.get("/secret", ({ identity }) => ({ identity: identity?.claims ?? null }), { authRequired: true });
  app.post("/secret", () => "posted", { authRequired: true });

  const admin = new SubRouter(import.meta.path, { prefix: "/admin" });
  admin.configureAuthentication(new AsyncAuth(new BearerGetter()));
  admin.get("/panel", ({ identity }) => identity?.claims ?? null, { authRequired: true });
  app.includeRouter(admin);

  const keyed = new SubRouter(import.meta.path, { prefix: "/keyed" });
  keyed.configureAuthentication(
    new (class extends AuthenticationHandler {
      authenticate(request: Request) {
        return this.tokenGetter.getToken(request) === "k1" ? new Identity({ claims: { key: "k1" } }) : null;
      }
    })(new ApiKeyGetter()),
  );
  keyed.get("/data", () => "keyed data", { authRequired: true });
  app.includeRouter(keyed);
  return app;
}

for (const [kind, makeClient] of CLIENTS) {
  describe(`authentication (${kind})`, () => {
    let client: Client;
    beforeAll(async () => {
      client = await makeClient(authApp());
    });
    afterAll(() => client.close());

    const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

    test("authRequired without a token: 401 Unauthorized with WWW-Authenticate", async () => {
      const response = await client.fetch("/secret");
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
      expect(await response.text()).toBe("Unauthorized");
    });

    test("a bad token is a 401; a good one runs the handler with the identity", async () => {
      expect((await client.fetch("/secret", bearer("bad"))).status).toBe(401);
      const ok = await client.fetch("/secret", bearer("good"));
      expect(await ok.json()).toEqual({ identity: { user: "sync" } });
    });

    test("scheme is case-insensitive; other schemes are not bearer tokens", async () => {
      expect((await client.fetch("/secret", { headers: { authorization: "bearer good" } })).status).toBe(200);
      expect((await client.fetch("/secret", { headers: { authorization: "BEARER good" } })).status).toBe(200);
      expect((await client.fetch("/secret", { headers: { authorization: "Basic good" } })).status).toBe(401);
      expect((await client.fetch("/secret", { headers: { authorization: "Bearer" } })).status).toBe(401);
      expect((await client.fetch("/secret", { headers: { authorization: "Bearergood" } })).status).toBe(401);
    });

    test("identity is set on routes that do not require it; null without a token", async () => {
      expect(await (await client.fetch("/open", bearer("good"))).json()).toEqual({
        identity: { user: "sync" },
      });
      expect(await (await client.fetch("/open")).json()).toEqual({ identity: null });
      expect(await (await client.fetch("/open", bearer("bad"))).json()).toEqual({ identity: null });
    });

    test("protection holds through path tricks and other methods", async () => {
      for (const path of ["/secret/", "/secret//", "/secret?x=1", "/./secret", "/%73ecret"]) {
        const response = await client.fetch(path);
        expect([path, response.status === 200]).toEqual([path, false]);
      }
      expect((await client.fetch("/secret", { method: "POST" })).status).toBe(401);
      expect((await client.fetch("/secret", { method: "POST", ...bearer("good") })).status).toBe(200);
      const head = await client.fetch("/secret", { method: "HEAD" });
      expect(head.status).toBe(401);
    });

    test("a sub-router's async handler overrides the app's", async () => {
      expect((await client.fetch("/admin/panel", bearer("good"))).status).toBe(401);
      expect(await (await client.fetch("/admin/panel", bearer("admin-token"))).json()).toEqual({
        user: "admin",
      });
    });

    test("an authenticate() that throws is a 401, not a 500", async () => {
      const response = await client.fetch("/admin/panel", bearer("explode"));
      expect(response.status).toBe(401);
    });

    test("custom token getters", async () => {
      expect((await client.fetch("/keyed/data")).status).toBe(401);
      expect((await client.fetch("/keyed/data", { headers: { "x-api-key": "k1" } })).status).toBe(200);
    });
  });
}
