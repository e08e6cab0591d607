/**
 * CORS and sessions on one sub-router (docs/cors.md, docs/cookies-and-sessions.md): `router.cors()`
 * and `router.sessions()`, the same methods as `app.cors()` and `app.sessions()`.
 *
 *   bun examples/router-pairs.ts      # http://127.0.0.1:8080
 *
 * The public site (`/`) has neither; the browser API under `/api` answers cross-origin calls from
 * one origin (preflights included) and keeps a signed-cookie session.
 */
import { SubRouter, t, Webfw } from "../src/index.ts";

const app = new Webfw(import.meta.path);
app.get("/", () => "public page: no CORS headers, no session cookie");

const api = new SubRouter(import.meta.path, { prefix: "/api" });
api.cors({ origins: ["https://app.example"], credentials: true });
api.sessions({ secretKey: process.env.SESSION_KEY ?? "change-me-to-32-bytes-or-more-of-secret" });

/** Adds to a per-visitor basket kept in the session cookie. */
api.post(
  "/basket",
  (request) => {
    const session = request.session;
    if (session === null) throw new Error("sessions are installed on this router");
    const basket = (session.get("basket") as string[] | undefined) ?? [];
    const next = [...basket, request.args.item];
    session.set("basket", next);
    return { basket: next };
  },
  { args: { item: t.str().minLength(1).maxLength(40) } },
);
api.get("/basket", (request) => ({ basket: request.session?.get("basket") ?? [] }));
app.includeRouter(api);

export default app;
if (import.meta.main) await app.start();
