/**
 * JwtAuth against a real JWKS server (test/auth/jwks-server.ts) over real sockets: good tokens,
 * every way a token is bad (expired, not yet valid, other audience or issuer, algorithms outside
 * the allow-list incl. `none` and the HS/RS confusion, tampered), key rotation with a
 * rate-limited refetch on an unknown `kid`, and a JWKS server that is down (503, documented in
 * docs/authentication.md). Also the secret and public-key modes, typed claims, OpenAPI and MCP.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { SignJWT } from "jose";
import { z } from "zod";
import { JwtAuth, type ServerHandle, SubRouter, Webfw } from "../../src/index.ts";
import type { JwtAuthOptions } from "../../src/types.ts";
import { initializeMessage, mcpPost } from "../mcp/helpers/raw-session.ts";
import {
  AUDIENCE,
  b64url,
  ISSUER,
  type JwksServer,
  type SigningKey,
  sign,
  signingKey,
  startJwksServer,
} from "./jwks-server.ts";

let keyA: SigningKey;
let keyB: SigningKey;
let ecKey: SigningKey;
const started: { stop(): Promise<void> }[] = [];

beforeAll(async () => {
  [keyA, keyB, ecKey] = await Promise.all([signingKey("a"), signingKey("b"), signingKey("ec", "ES256")]);
});
afterEach(async () => {
  for (const s of started.splice(0)) await s.stop();
});

async function serve(options: Partial<JwtAuthOptions> & Pick<JwtAuthOptions, "algorithms">) {
  const app = new Webfw(import.meta.path);
  app.configureAuthentication(new JwtAuth({ issuer: ISSUER, audience: AUDIENCE, ...options }));
  app.get("/me", ({ identity }) => identity?.claims ?? null, { authRequired: true });
  app.get("/open", ({ identity }) => ({ sub: identity?.claims.sub ?? null }));
  const server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
  started.push({ stop: () => server.stop(true) });
  return {
    server,
    get: (path: string, token?: string) =>
      fetch(
        `${server.url}${path}`,
        token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
      ),
  };
}

function jwks(keys: SigningKey[]): JwksServer {
  const server = startJwksServer(keys);
  started.push(server);
  return server;
}

describe("JwtAuth with a JWKS", () => {
  test("a good token: 200 with the payload as identity.claims; no token: 401 with the challenge", async () => {
    const keys = jwks([keyA, ecKey]);
    const { get } = await serve({ jwks: keys.url, algorithms: ["RS256", "ES256"] });
    const ok = await get("/me", await sign(keyA));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ sub: "ada", iss: ISSUER, aud: AUDIENCE, scope: "notes:read" });
    expect((await get("/me", await sign(ecKey))).status).toBe(200);
    const none = await get("/me");
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe("Bearer");
    // Public routes: an identity when the token is good, none (not a 401) when it is bad.
    expect(await (await get("/open", await sign(keyA))).json()).toEqual({ sub: "ada" });
    expect(await (await get("/open", "not.a.jwt")).json()).toEqual({ sub: null });
    expect(keys.fetches).toBe(1);
  });

  test("expired, not yet valid, other audience, other issuer, no exp: 401", async () => {
    const keys = jwks([keyA]);
    const { get } = await serve({ jwks: keys.url, algorithms: ["RS256"], clockSkewSec: 30 });
    const cases: [string, string][] = [
      ["expired", await sign(keyA, { expiresIn: -120 })],
      ["not before", await sign(keyA, { notBefore: 120 })],
      ["audience", await sign(keyA, { audience: "https://other.test" })],
      ["issuer", await sign(keyA, { issuer: "https://evil.test" })],
      ["no exp", await sign(keyA, { expiresIn: null })],
    ];
    for (const [what, token] of cases) expect([what, (await get("/me", token)).status]).toEqual([what, 401]);
    // Within the clock skew both ways: accepted.
    expect((await get("/me", await sign(keyA, { expiresIn: -10 }))).status).toBe(200);
    expect((await get("/me", await sign(keyA, { notBefore: 10 }))).status).toBe(200);
  });

  test("algorithms outside the allow-list: none, HS256 with the public key as secret, RS512", async () => {
    const keys = jwks([keyA]);
    const { get } = await serve({ jwks: keys.url, algorithms: ["RS256"] });
    const claims = { sub: "mallory", iss: ISSUER, aud: AUDIENCE, exp: Math.floor(Date.now() / 1000) + 300 };
    const unsigned = `${b64url({ alg: "none", typ: "JWT" })}.${b64url(claims)}.`;
    expect((await get("/me", unsigned)).status).toBe(401);
    // The HS/RS confusion: the RSA public key (public knowledge) used as an HMAC secret.
    const publicPem = new TextEncoder().encode(JSON.stringify(keyA.jwk));
    const confused = await new SignJWT(claims).setProtectedHeader({ alg: "HS256", kid: "a" }).sign(publicPem);
    expect((await get("/me", confused)).status).toBe(401);
    const rs512 = await signingKey("a", "RS512");
    expect((await get("/me", await sign(rs512))).status).toBe(401);
    // None of them made the server fetch the keys again (the allow-list is checked first).
    expect(keys.fetches).toBeLessThanOrEqual(1);
  });

  test("tampered payload or signature: 401", async () => {
    const keys = jwks([keyA]);
    const { get } = await serve({ jwks: keys.url, algorithms: ["RS256"] });
    const [header, payload, signature] = (await sign(keyA)).split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>;
    const forged = `${header}.${b64url({ ...claims, sub: "admin" })}.${signature}`;
    expect((await get("/me", forged)).status).toBe(401);
    const flipped = `${header}.${payload}.${signature.slice(0, -4)}${signature.endsWith("AAAA") ? "BBBB" : "AAAA"}`;
    expect((await get("/me", flipped)).status).toBe(401);
    for (const junk of ["x", "a.b.c", `${header}.${payload}`, "Bearer", "é.é.é"]) {
      expect([junk, (await get("/me", junk)).status]).toEqual([junk, 401]);
    }
  });

  test("key rotation: an unknown kid refetches the set, at most once per cooldown", async () => {
    const keys = jwks([keyA]);
    const { get } = await serve({ jwks: keys.url, algorithms: ["RS256"], jwksCooldownSec: 0.5 });
    expect((await get("/me", await sign(keyA))).status).toBe(200);
    expect(keys.fetches).toBe(1);
    // The issuer rotates: B is published, A retired.
    keys.keys = [keyB];
    await Bun.sleep(600);
    expect((await get("/me", await sign(keyB))).status).toBe(200);
    expect(keys.fetches).toBe(2);
    // A flood of made-up kids within the cooldown: 401 each, no fetch.
    for (let i = 0; i < 5; i++)
      expect((await get("/me", await sign(keyA, { kid: `x${i}` }))).status).toBe(401);
    expect(keys.fetches).toBe(2);
    // The retired key is gone from the refetched set.
    expect((await get("/me", await sign(keyA))).status).toBe(401);
    // After the cooldown an unknown kid may fetch once more.
    await Bun.sleep(600);
    expect((await get("/me", await sign(keyA, { kid: "y" }))).status).toBe(401);
    expect(keys.fetches).toBe(3);
  });

  test("JWKS server down before any key was fetched: 503 with Retry-After, not 401", async () => {
    const keys = jwks([keyA]);
    await keys.stop();
    const { get } = await serve({ jwks: keys.url, algorithms: ["RS256"], jwksTimeoutMs: 1000 });
    const response = await get("/me", await sign(keyA));
    expect(response.status).toBe(503);
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // A public route cannot decide either: the client is told to come back, not made anonymous.
    expect((await get("/open", await sign(keyA))).status).toBe(503);
    // No token at all is still a plain 401 (nothing to verify).
    expect((await get("/me")).status).toBe(401);
  });

  test("JWKS server answering 500: 503; once it recovers (after the cooldown), 200", async () => {
    const keys = jwks([keyA]);
    keys.failing = true;
    const { get } = await serve({ jwks: keys.url, algorithms: ["RS256"], jwksCooldownSec: 0.3 });
    const token = await sign(keyA);
    expect((await get("/me", token)).status).toBe(503);
    expect((await get("/me", token)).status).toBe(503);
    // Within the cooldown the failing server is not asked again.
    expect(keys.fetches).toBe(1);
    keys.failing = false;
    await Bun.sleep(400);
    expect((await get("/me", token)).status).toBe(200);
  });

  test("JWKS server down after keys were fetched: known keys keep verifying, an unknown kid is 503", async () => {
    const keys = jwks([keyA]);
    const { get } = await serve({
      jwks: keys.url,
      algorithms: ["RS256"],
      jwksCacheMaxAgeSec: 0.2,
      jwksCooldownSec: 0.2,
    });
    expect((await get("/me", await sign(keyA))).status).toBe(200);
    keys.failing = true;
    await Bun.sleep(300); // the cache is stale: the next token asks the (failing) server
    expect((await get("/me", await sign(keyA))).status).toBe(200);
    expect((await get("/me", await sign(keyA, { kid: "new" }))).status).toBe(503);
    // A token the last good keys can refute is still refused outright.
    expect((await get("/me", await sign(keyA, { audience: "https://other.test" }))).status).toBe(401);
  });
});

describe("JwtAuth with a secret or a public key", () => {
  const secret = "a-shared-secret-of-at-least-32-bytes!";

  test("HS256 with a secret", async () => {
    const { get } = await serve({ secret, algorithms: ["HS256"] });
    const now = Math.floor(Date.now() / 1000);
    const good = await new SignJWT({ sub: "ada" })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime(now + 60)
      .sign(new TextEncoder().encode(secret));
    expect((await get("/me", good)).status).toBe(200);
    const otherSecret = await new SignJWT({ sub: "ada" })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime(now + 60)
      .sign(new TextEncoder().encode(`${secret}-not`));
    expect((await get("/me", otherSecret)).status).toBe(401);
    // An RS256 token is outside the allow-list of a secret.
    expect((await get("/me", await sign(keyA))).status).toBe(401);
  });

  test("RS256 with a PEM public key; ES256 with a JWK", async () => {
    const { exportSPKI } = await import("jose");
    const pem = await exportSPKI(keyA.publicKey);
    const rsa = await serve({ publicKey: pem, algorithms: ["RS256"] });
    expect((await rsa.get("/me", await sign(keyA))).status).toBe(200);
    expect((await rsa.get("/me", await sign(keyB))).status).toBe(401);
    const ec = await serve({ publicKey: ecKey.jwk, algorithms: ["ES256"] });
    expect((await ec.get("/me", await sign(ecKey))).status).toBe(200);
  });

  test("typed claims through a Standard Schema: a payload that does not match is 401", async () => {
    const app = new Webfw(import.meta.path);
    const auth = new JwtAuth({
      secret,
      algorithms: ["HS256"],
      claims: z.object({ sub: z.string(), role: z.enum(["admin", "user"]) }),
    });
    app.configureAuthentication(auth);
    // `identity.claims.role` is typed "admin" | "user" here.
    app.get("/role", ({ identity }) => ({ role: identity?.claims.role }), { authRequired: true });
    const server: ServerHandle = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
    started.push({ stop: () => server.stop(true) });
    const token = (role: string) =>
      new SignJWT({ sub: "ada", role })
        .setProtectedHeader({ alg: "HS256" })
        .setExpirationTime("1m")
        .sign(new TextEncoder().encode(secret));
    const ok = await fetch(`${server.url}/role`, {
      headers: { authorization: `Bearer ${await token("admin")}` },
    });
    expect(await ok.json()).toEqual({ role: "admin" });
    const bad = await fetch(`${server.url}/role`, {
      headers: { authorization: `Bearer ${await token("root")}` },
    });
    expect(bad.status).toBe(401);
  });

  test("mistakes are refused at construction", () => {
    const pem = "-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----";
    const bad: [string, () => unknown][] = [
      ["none", () => new JwtAuth({ secret, algorithms: ["none" as "HS256"] })],
      ["empty", () => new JwtAuth({ secret, algorithms: [] })],
      ["secret with RS256", () => new JwtAuth({ secret, algorithms: ["RS256"] })],
      ["jwks with HS256", () => new JwtAuth({ jwks: "https://x.test/jwks", algorithms: ["HS256"] })],
      ["public key with HS256", () => new JwtAuth({ publicKey: pem, algorithms: ["HS256", "RS256"] })],
      ["short secret", () => new JwtAuth({ secret: "short", algorithms: ["HS256"] })],
      ["HS512 secret", () => new JwtAuth({ secret, algorithms: ["HS512"] })],
      ["no key", () => new JwtAuth({ algorithms: ["RS256"] })],
      ["two keys", () => new JwtAuth({ secret, jwks: "https://x.test/jwks", algorithms: ["HS256"] })],
      ["jwks not a URL", () => new JwtAuth({ jwks: "jwks.json", algorithms: ["RS256"] })],
      ["negative skew", () => new JwtAuth({ secret, algorithms: ["HS256"], clockSkewSec: -1 })],
    ];
    for (const [what, make] of bad) expect([what, make]).toEqual([what, expect.any(Function)]);
    for (const [what, make] of bad) expect(make, what).toThrow(TypeError);
  });
});

describe("JwtAuth with OpenAPI and MCP", () => {
  test("the generated document names a bearer JWT scheme for its routes", async () => {
    const app = new Webfw(import.meta.path);
    app.configureAuthentication(
      new JwtAuth({ jwks: "https://issuer.test/jwks.json", algorithms: ["RS256"] }),
    );
    app.get("/me", () => "me", { authRequired: true });
    const document = (await (await app.request("/openapi.json")).json()) as {
      paths: Record<string, Record<string, { security?: unknown }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(document.paths["/me"]?.get?.security).toEqual([{ bearerJwt: [] }]);
    expect(document.components.securitySchemes).toEqual({
      bearerJwt: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "JWT",
        description: "`Authorization: Bearer <JWT>`",
      },
    });
  });

  test("the MCP endpoint: scopes from `scp`/`scope`, 401 for a bad token, 503 when the JWKS is down", async () => {
    const keys = jwks([keyA]);
    const resource = "https://api.test/mcp";
    const app = new Webfw(import.meta.path);
    app.configureAuthentication(
      new JwtAuth({ jwks: keys.url, algorithms: ["RS256"], audience: resource, jwksCooldownSec: 0.2 }),
    );
    app.mcp.configure({ auth: { resource, authorizationServers: [ISSUER], scopes: ["mcp"] } });
    app.mcp.tool(function ping() {
      return "pong";
    });
    const server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
    started.push({ stop: () => server.stop(true) });
    const initialize = (token: string) =>
      mcpPost(`${server.url}/mcp`, initializeMessage({ id: 1, client: "t", protocolVersion: "2025-06-18" }), {
        authorization: `Bearer ${token}`,
      });
    const scp = await sign(keyA, { audience: resource, claims: { scope: undefined, scp: ["mcp"] } });
    expect((await initialize(scp)).status).toBe(200);
    const spaced = await sign(keyA, { audience: resource, claims: { scope: "notes:read mcp" } });
    expect((await initialize(spaced)).status).toBe(200);
    const lacking = await initialize(await sign(keyA, { audience: resource }));
    expect(lacking.status).toBe(403);
    expect(lacking.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    const otherAudience = await initialize(await sign(keyA, { claims: { scp: ["mcp"] } }));
    expect(otherAudience.status).toBe(401);
    expect(otherAudience.headers.get("www-authenticate")).toContain('error="invalid_token"');
    // A kid the server must look up while the JWKS is down: 503, a JSON-RPC error body.
    keys.failing = true;
    await Bun.sleep(300); // past the cooldown: an unknown kid asks the JWKS server
    const down = await initialize(
      await sign(keyA, { audience: resource, kid: "rotated", claims: { scp: ["mcp"] } }),
    );
    expect(down.status).toBe(503);
    expect(((await down.json()) as { error: { message: string } }).error.message).toContain("signing keys");
  });

  test("a sub-router may verify with another JwtAuth than the app's", async () => {
    const app = new Webfw(import.meta.path);
    const secret = "another-shared-secret-of-32-bytes-or-more";
    app.configureAuthentication(new JwtAuth({ secret, algorithms: ["HS256"] }));
    const partners = new SubRouter(import.meta.path, { prefix: "/partners" });
    partners.configureAuthentication(new JwtAuth({ publicKey: ecKey.jwk, algorithms: ["ES256"] }));
    partners.get("/me", ({ identity }) => ({ sub: identity?.claims.sub }), { authRequired: true });
    app.includeRouter(partners);
    const ok = await app.request("/partners/me", {
      headers: { authorization: `Bearer ${await sign(ecKey)}` },
    });
    expect(await ok.json()).toEqual({ sub: "ada" });
  });
});

afterAll(async () => {
  for (const s of started.splice(0)) await s.stop();
});
