/**
 * The baseline: plain `Bun.serve`, written as a Bun user would write it with
 * the `routes` table (Bun ≥ 1.2), doing exactly the work of each scenario.
 * Scenario `const` uses a static `Response` route (no JS per request).
 */
import type { Server } from "bun";
import { burn, cpuIterations } from "../lib/cpu-work.ts";
import { announce, benchPort, HELLO, POWERED_BY, scenarioFromEnv } from "../lib/ready.ts";

type Routes = Bun.Serve.Routes<undefined, string>;

const scenario = scenarioFromEnv();
const notFound = () => new Response("Not Found", { status: 404 });

function routesFor(name: string): Routes | Promise<Routes> {
  switch (name) {
    case "prod":
      return prodRoutes(process.env.BENCH_PROD ?? "");
    case "stack":
      return stackRoutes();
    case "hello":
    case "fast":
    case "rss":
    case "startup":
    case "observability":
      return { "/": () => new Response(HELLO) };
    case "const":
      return { "/": new Response(HELLO) };
    case "params":
      return {
        "/id/:id": (req: Bun.BunRequest) => {
          const name = new URL(req.url).searchParams.get("name");
          return new Response(`${req.params.id} ${name}`, { headers: { "x-powered-by": POWERED_BY } });
        },
      };
    case "json": {
      // `BENCH_JSON_LADDER`: one step of webfw's echo done by hand (bench/lib/json-ladder.ts).
      const step = process.env.BENCH_JSON_LADDER;
      // Imported here only: the ladder loads webfw's modules, which would otherwise count in raw
      // Bun's start-up and idle memory in every scenario (docs/performance.md, "seventh pass").
      if (step !== undefined)
        return import("../lib/json-ladder.ts").then(({ JSON_LADDER }) => ({
          "/json": { POST: JSON_LADDER[step] as (req: Request) => Response },
        }));
      return { "/json": { POST: async (req: Request) => Response.json(await req.json()) } };
    }
    case "middleware":
      // The same work as one before and one after middleware, written inline.
      return {
        "/": (req: Request) => {
          before(req);
          const response = new Response(HELLO);
          response.headers.set("x-after", "1");
          return response;
        },
      };
    case "cpu": {
      const iterations = cpuIterations();
      return { "/cpu": () => new Response(String(burn(iterations))), "/health": () => new Response("ok") };
    }
    default:
      throw new Error(`raw: unknown scenario ${name}`);
  }
}

/**
 * The `prod` scenario's yardsticks (issue #18): what a Bun user writes by hand for a request id
 * (the client's when sane, else a UUIDv7, echoed) and for a per-IP fixed-window count that is never
 * exceeded (the two RateLimit headers on the answer). webfw's rows are compared with these: Bun
 * itself serves a response with one header of its own at ~0.8 × one without.
 */
function prodRoutes(feature: string): Routes {
  if (feature === "request-id") {
    return {
      "/": (req: Request) => {
        const incoming = req.headers.get("x-request-id");
        const id = incoming !== null && /^[\x21-\x7e]{1,128}$/.test(incoming) ? incoming : Bun.randomUUIDv7();
        const response = new Response(HELLO);
        response.headers.set("x-request-id", id);
        return response;
      },
    };
  }
  if (feature === "limit-memory") {
    const windows = new Map<string, { count: number; resetAt: number }>();
    const windowMs = 3_600_000;
    return {
      "/": (req: Request, srv: Server<unknown>) => {
        const key = srv.requestIP(req)?.address ?? "unknown";
        const now = Date.now();
        let window = windows.get(key);
        if (window === undefined || window.resetAt <= now) {
          window = { count: 0, resetAt: now + windowMs };
          windows.set(key, window);
        }
        window.count++;
        const response = new Response(HELLO);
        response.headers.set("ratelimit-policy", '"default";q=1000000000;w=3600');
        const reset = Math.ceil((window.resetAt - now) / 1000);
        response.headers.set("ratelimit", `"default";r=${1_000_000_000 - window.count};t=${reset}`);
        return response;
      },
    };
  }
  return { "/": () => new Response(HELLO) };
}

/**
 * The production stack by hand (docs/performance.md): a request id echoed, a per-IP fixed window
 * never exceeded with its RateLimit headers, and prom-client's request counter and duration
 * histogram (the same two series the peers' plugins keep), with a /metrics route.
 */
async function stackRoutes(): Promise<Routes> {
  const { Counter, Histogram, Registry } = await import("prom-client");
  const register = new Registry();
  const labelNames = ["method", "route", "status"] as const;
  const total = new Counter({
    name: "http_requests_total",
    help: "Requests",
    labelNames,
    registers: [register],
  });
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Request duration",
    labelNames,
    registers: [register],
  });
  const windows = new Map<string, { count: number; resetAt: number }>();
  const windowMs = 3_600_000;
  return {
    "/metrics": async () =>
      new Response(await register.metrics(), { headers: { "content-type": register.contentType } }),
    "/": (req: Request, srv: Server<unknown>) => {
      const start = performance.now();
      const incoming = req.headers.get("x-request-id");
      const id = incoming !== null && /^[\x21-\x7e]{1,128}$/.test(incoming) ? incoming : Bun.randomUUIDv7();
      const key = srv.requestIP(req)?.address ?? "unknown";
      const now = Date.now();
      let window = windows.get(key);
      if (window === undefined || window.resetAt <= now) {
        window = { count: 0, resetAt: now + windowMs };
        windows.set(key, window);
      }
      window.count++;
      const reset = Math.ceil((window.resetAt - now) / 1000);
      const response = new Response(HELLO, {
        headers: {
          "x-request-id": id,
          "ratelimit-policy": '"default";q=1000000000;w=3600',
          ratelimit: `"default";r=${1_000_000_000 - window.count};t=${reset}`,
        },
      });
      const labels = { method: req.method, route: "/", status: "200" };
      total.inc(labels);
      duration.observe(labels, (performance.now() - start) / 1000);
      return response;
    },
  };
}

function before(req: Request): void {
  if (req.method === "") throw new Error("unreachable");
}

let server: Server<unknown>;
if (scenario === "ws") {
  server = Bun.serve<undefined>({
    hostname: "127.0.0.1",
    port: benchPort(),
    fetch(req, srv) {
      if (new URL(req.url).pathname === "/ws" && srv.upgrade(req, { data: undefined })) return undefined;
      return notFound();
    },
    websocket: {
      message(ws, message) {
        ws.send(message);
      },
    },
  });
} else {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: benchPort(),
    routes: await routesFor(scenario),
    fetch: notFound,
  });
}
announce(server.port);
