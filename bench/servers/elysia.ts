/** Elysia (pinned in bench/package.json), idiomatic code for each scenario. */
import { Elysia } from "elysia";
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

const app = (await appFor(scenario)).listen({ hostname: "127.0.0.1", port: benchPort() });
announce(app.server?.port);
