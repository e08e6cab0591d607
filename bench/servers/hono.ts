/** Hono (pinned in bench/package.json) on `Bun.serve`, idiomatic code for each scenario. */
import { Hono } from "hono";
import { announce, benchPort, HELLO, POWERED_BY, scenarioFromEnv } from "../lib/ready.ts";

const scenario = scenarioFromEnv();
const app = new Hono();

switch (scenario) {
  case "hello":
  case "rss":
  case "startup":
  case "const":
    // Hono has no static-response route: `const` is the same handler.
    app.get("/", (c) => c.text(HELLO));
    break;
  case "params":
    app.get("/id/:id", (c) => {
      c.header("x-powered-by", POWERED_BY);
      return c.text(`${c.req.param("id")} ${c.req.query("name")}`);
    });
    break;
  case "json":
    app.post("/json", async (c) => c.json(await c.req.json()));
    break;
  case "middleware":
    // Hono's middleware is one function around the handler: the before and after halves.
    app.use(async (c, next) => {
      if (c.req.method === "") throw new Error("unreachable");
      await next();
      c.header("x-after", "1");
    });
    app.get("/", (c) => c.text(HELLO));
    break;
  case "stack": {
    // The production stack (docs/performance.md): Hono's own requestId middleware (echoes a sane
    // X-Request-Id, else a UUID), hono-rate-limiter's memory store keyed by the client address,
    // never hit, and @hono/prometheus's request metrics with their /metrics route. Imported here
    // only: the other scenarios (start-up above all) load Hono alone.
    const [{ prometheus }, { getConnInfo }, { requestId }, { rateLimiter }] = await Promise.all([
      import("@hono/prometheus"),
      import("hono/bun"),
      import("hono/request-id"),
      import("hono-rate-limiter"),
    ]);
    const { printMetrics, registerMetrics } = prometheus();
    app.use(requestId());
    app.use(
      rateLimiter({
        windowMs: 3_600_000,
        limit: 1_000_000_000,
        standardHeaders: "draft-7",
        keyGenerator: (c) => getConnInfo(c).remote.address ?? "unknown",
      }),
    );
    app.use(registerMetrics);
    app.get("/metrics", printMetrics);
    app.get("/", (c) => c.text(HELLO));
    break;
  }
  default:
    throw new Error(`hono: unknown scenario ${scenario}`);
}

const server = Bun.serve({ hostname: "127.0.0.1", port: benchPort(), fetch: app.fetch });
announce(server.port);
