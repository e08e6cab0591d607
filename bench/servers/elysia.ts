/** Elysia (pinned in bench/package.json), idiomatic code for each scenario. */
import { Elysia } from "elysia";
import { announce, HELLO, POWERED_BY, scenarioFromEnv } from "../lib/ready.ts";

const scenario = scenarioFromEnv();

function appFor(name: string) {
  switch (name) {
    case "hello":
    case "rss":
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
    default:
      throw new Error(`elysia: unknown scenario ${name}`);
  }
}

const app = appFor(scenario).listen({ hostname: "127.0.0.1", port: 0 });
announce(app.server?.port);
