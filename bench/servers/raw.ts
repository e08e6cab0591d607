/**
 * The baseline: plain `Bun.serve`, written as a Bun user would write it with
 * the `routes` table (Bun ≥ 1.2), doing exactly the work of each scenario.
 * Scenario `const` uses a static `Response` route (no JS per request).
 */
import type { Server } from "bun";
import { burn, cpuIterations } from "../lib/cpu-work.ts";
import { announce, HELLO, POWERED_BY, scenarioFromEnv } from "../lib/ready.ts";

type Routes = Bun.Serve.Routes<undefined, string>;

const scenario = scenarioFromEnv();
const notFound = () => new Response("Not Found", { status: 404 });

function routesFor(name: string): Routes {
  switch (name) {
    case "hello":
    case "prod":
    case "fast":
    case "rss":
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
    case "json":
      return { "/json": { POST: async (req: Request) => Response.json(await req.json()) } };
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

function before(req: Request): void {
  if (req.method === "") throw new Error("unreachable");
}

let server: Server<unknown>;
if (scenario === "ws") {
  server = Bun.serve<undefined>({
    hostname: "127.0.0.1",
    port: 0,
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
    port: 0,
    routes: routesFor(scenario),
    fetch: notFound,
  });
}
announce(server.port);
