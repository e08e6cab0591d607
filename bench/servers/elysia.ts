/** Elysia (pinned in bench/package.json), idiomatic code for each scenario. */
import { Elysia, status } from "elysia";
import { announce, benchPort, HELLO, POWERED_BY, scenarioFromEnv } from "../lib/ready.ts";

const scenario = scenarioFromEnv();

async function appFor(name: string) {
  switch (name) {
    case "hello":
    case "rss":
    case "startup":
      return new Elysia().get("/", () => HELLO);
    case "const":
      // A static value: Elysia hands it to Bun as a static route.
      return new Elysia().get("/", HELLO);
    case "params":
      return new Elysia().get("/id/:id", ({ params: { id }, query: { name }, set }) => {
        set.headers["x-powered-by"] = POWERED_BY;
        return `${id} ${name}`;
      });
    case "json":
      // `check`: the cross-site check alone, to tell its share from the read's.
      if (process.env.BENCH_JSON_SAME_WORK === "check")
        return new Elysia().onRequest(crossSiteCheck).post("/json", ({ body }) => body);
      // `inline-check`: the same check written into the handler, the least an Elysia app can spend on it
      // (not what a user writes for every route: the body is read before it runs).
      if (process.env.BENCH_JSON_SAME_WORK === "inline-check")
        return new Elysia().post("/json", ({ request, body }) => crossSiteCheck({ request }) ?? body);
      if (process.env.BENCH_JSON_SAME_WORK === "1") return jsonDoingWebfwsWork();
      return new Elysia().post("/json", ({ body }) => body);
    case "middleware":
      return new Elysia()
        .onBeforeHandle(({ request }) => {
          if (request.method === "") throw new Error("unreachable");
        })
        .onAfterHandle(({ set }) => {
          set.headers["x-after"] = "1";
        })
        .get("/", () => HELLO);
    case "ws":
      return new Elysia().ws("/ws", {
        message(ws, message) {
          ws.send(message);
        },
      });
    case "stack": {
      // The production stack (docs/performance.md): elysia-rate-limit (memory, keyed by the client
      // address, RateLimit-* headers, never hit), elysia-prometheus (request count and duration,
      // /metrics) and a request id echoed by a global hook: npm's elysia-requestid needs Elysia 0.7,
      // so its few lines are written here (a sane incoming X-Request-Id, else a UUID). The plugins
      // are imported here only: the other scenarios (start-up above all) load Elysia alone.
      const [{ default: prometheus }, { rateLimit }] = await Promise.all([
        import("elysia-prometheus"),
        import("elysia-rate-limit"),
      ]);
      return new Elysia()
        .use(rateLimit({ duration: 3_600_000, max: 1_000_000_000 }))
        .use(prometheus())
        .onRequest(({ request, set }) => {
          const incoming = request.headers.get("x-request-id");
          set.headers["x-request-id"] =
            incoming !== null && /^[\x21-\x7e]{1,255}$/.test(incoming) ? incoming : crypto.randomUUID();
        })
        .get("/", () => HELLO);
    }
    default:
      throw new Error(`elysia: unknown scenario ${name}`);
  }
}

/**
 * The JSON echo doing what webfw's does before its handler (docs/performance.md, "Issue 32, seventh
 * pass: a peer doing the same work"), the way an Elysia user writes it: the cross-site check of an
 * unsafe method (docs/security.md: `Sec-Fetch-Site`, else `Origin` against `Host`; neither: not a
 * browser, passed), the declared length reserved from an in-flight budget (503 over it), and a 408
 * when the whole body has not arrived within the read timeout (`BENCH_JSON_READ_TIMEOUT_MS`, 30 s
 * like webfw's default). Elysia has no plugin for any of the three; `hono/csrf` checks form bodies only.
 */
function jsonDoingWebfwsWork() {
  const readTimeoutMs = Number(process.env.BENCH_JSON_READ_TIMEOUT_MS ?? "30000");
  const budget = 128 * 1024 * 1024;
  let inFlight = 0;
  return (
    new Elysia()
      .onRequest(crossSiteCheck)
      .onParse(async ({ request }) => {
        const length = Number(request.headers.get("content-length") ?? "0");
        if (inFlight + length > budget) throw new BodyRefused(503, "Service Unavailable");
        inFlight += length;
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new BodyRefused(408, "Request Timeout")), readTimeoutMs);
        });
        try {
          return await Promise.race([request.json(), late]);
        } finally {
          clearTimeout(timer);
          inFlight -= length;
        }
      })
      // Elysia wraps what a parse hook throws in its `ParseError` (a 400); the refusal is its cause.
      .onError(({ code, error }) => {
        if (code === "PARSE" && error.cause instanceof BodyRefused)
          return status(error.cause.status, error.cause.message);
      })
      .post("/json", ({ body }) => body)
  );
}

/** The cross-site check of an unsafe method, as an Elysia `onRequest` hook. */
function crossSiteCheck({ request }: { request: Request }) {
  const method = request.method;
  if (method === "GET" || method === "HEAD" || method === "OPTIONS" || method === "TRACE") return;
  const site = request.headers.get("sec-fetch-site");
  const origin = request.headers.get("origin");
  if (site === null && origin === null) return;
  if (site === "same-origin" || site === "none") return;
  if (site === null && origin !== null && URL.canParse(origin)) {
    if (new URL(origin).host === request.headers.get("host")) return;
  }
  return status(403, "Cross-site request refused");
}

class BodyRefused extends Error {
  constructor(
    readonly status: 408 | 503,
    message: string,
  ) {
    super(message);
  }
}

const app = (await appFor(scenario)).listen({ hostname: "127.0.0.1", port: benchPort() });
announce(app.server?.port);
