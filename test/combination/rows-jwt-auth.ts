/**
 * Combination rows of the jwt-auth branch: JwtAuth and BasicAuth (each on its own SubRouter,
 * overriding the app's authentication), conditional GETs (a weak ETag revalidated to 304) and
 * Server-Timing (app.ts turns `serverTiming` on). See table.ts for how rows are shaped.
 */
import { expect } from "bun:test";
import { SignJWT } from "jose";
import { BasicAuth, JwtAuth, SubRouter } from "webfw";
import { timed } from "webfw/observability";
import { type CallInit, type Exchange, type Feature, featurePath, httpExchange, TOKEN } from "./table.ts";

const SECRET = "combination-suite-jwt-secret-0123456789";
const ISSUER = "https://issuer.combo.example";

/** The suite's bearer token stands for "ada": each row turns it into its own credential. */
function withCredential(init: CallInit, credential: () => Promise<string>): Promise<CallInit> {
  const headers = { ...init.headers };
  if (headers.authorization !== `Bearer ${TOKEN}`) return Promise.resolve(init);
  return credential().then((authorization) => ({ ...init, headers: { ...headers, authorization } }));
}

const jwtFor = async () =>
  `Bearer ${await new SignJWT({ sub: "ada", scope: "combo" })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer(ISSUER)
    .setExpirationTime("5m")
    .sign(new TextEncoder().encode(SECRET))}`;

/** The weak ETag webfw gives this body (src/conditional/entity-tags.ts), as a cache would have stored it. */
function etagOf(body: string): string {
  const bytes = new TextEncoder().encode(body);
  return `W/"${bytes.byteLength.toString(16)}-${Bun.hash.wyhash(bytes).toString(36)}"`;
}

const ETAG_BODY = "etag for ada";

export const ROWS: Feature[] = [
  {
    name: "jwt-auth",
    register(app, ctx) {
      const router = new SubRouter(import.meta.path, { prefix: featurePath("jwt-auth") });
      router.configureAuthentication(new JwtAuth({ secret: SECRET, algorithms: ["HS256"], issuer: ISSUER }));
      router.get(
        "/",
        (request) =>
          ctx.guard(request)?.then(() => ({ never: true })) ?? {
            sub: request.identity?.claims.sub ?? null,
            scope: request.identity?.claims.scope ?? null,
            state: request.state.marker ?? null,
          },
        ctx.routeOptions,
      );
      app.includeRouter(router);
    },
    exchange: async (base, init) =>
      httpExchange(base, featurePath("jwt-auth"), await withCredential(init, jwtFor)),
    verify(result: Exchange) {
      expect(result.status).toBe(200);
      expect(JSON.parse(result.body)).toEqual({ sub: "ada", scope: "combo", state: "state-ok" });
    },
  },
  {
    name: "basic-auth",
    register(app, ctx) {
      const router = new SubRouter(import.meta.path, { prefix: featurePath("basic-auth") });
      router.configureAuthentication(new BasicAuth({ users: { ada: "lovelace" }, realm: "combo" }));
      router.get(
        "/",
        (request) =>
          ctx.guard(request)?.then(() => "never") ?? `basic ${request.identity?.claims.sub ?? "nobody"}`,
        ctx.routeOptions,
      );
      app.includeRouter(router);
    },
    exchange: async (base, init) =>
      httpExchange(
        base,
        featurePath("basic-auth"),
        await withCredential(init, async () => `Basic ${btoa("ada:lovelace")}`),
      ),
    verify(result: Exchange) {
      expect(result.status).toBe(200);
      expect(result.body).toBe("basic ada");
    },
    skip: {
      "problem-details":
        "the column checks a Bearer challenge; Basic's 401 as problem details is in test/auth/basic.test.ts",
    },
  },
  {
    // A client revalidating what it cached: the ETag of the body it holds is current, so 304.
    name: "etag",
    register(app, ctx) {
      app.get(
        featurePath("etag"),
        (request) =>
          ctx.guard(request)?.then(() => "never") ?? `etag for ${String(request.identity?.claims.user)}`,
        { ...ctx.routeOptions, etag: true, cacheControl: "private, max-age=0, must-revalidate" },
      );
    },
    exchange: (base, init) =>
      httpExchange(base, featurePath("etag"), {
        ...init,
        headers: { "if-none-match": etagOf(ETAG_BODY), ...init.headers },
      }),
    verify(result: Exchange) {
      expect(result.status).toBe(304);
      expect(result.body).toBe("");
      expect(result.headers.get("etag")).toBe(etagOf(ETAG_BODY));
      expect(result.headers.get("cache-control")).toBe("private, max-age=0, must-revalidate");
      expect(result.headers.get("content-type")).toBeNull();
    },
  },
  {
    name: "server-timing",
    register(app, ctx) {
      app.get(
        featurePath("server-timing"),
        async (request) => {
          await ctx.guard(request);
          const value = await timed(request, "work", () => Bun.sleep(5).then(() => "timed"));
          return { value };
        },
        ctx.routeOptions,
      );
    },
    exchange: (base, init) => httpExchange(base, featurePath("server-timing"), init),
    verify(result: Exchange) {
      expect(result.status).toBe(200);
      expect(JSON.parse(result.body)).toEqual({ value: "timed" });
      const header = result.headers.get("server-timing") ?? "";
      expect(header).toMatch(/^total;dur=[\d.]+, /);
      expect(header).toMatch(/(^|, )handler;dur=[\d.]+/);
      // `timed()` records where the handler runs: on a Worker its entry stays there (docs/observability.md).
      expect(header).toMatch(/(^|, )(work|handler);dur=/);
    },
  },
];
