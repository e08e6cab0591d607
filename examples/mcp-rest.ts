/**
 * A small REST API that is also an MCP server: each route that should be a
 * tool says `mcp: true` (or gives a name and a description), and the tool runs
 * the route itself: its validation, its authentication, its middlewares.
 * docs/mcp-route-tools.md explains every piece.
 *
 *   bun examples/mcp-rest.ts --port 8080
 *   curl -s localhost:8080/todos                                  # the REST API, as always
 *   npx @modelcontextprotocol/inspector --cli http://127.0.0.1:8080/mcp --transport http --method tools/list
 *
 * Writing needs a token (`Authorization: Bearer let-me-write`, scope `todos:write`);
 * over MCP the client is sent a 401/403 challenge first, as the MCP authorization spec says.
 */
import { z } from "zod";
import { AuthenticationHandler, HttpError, Identity, type Request, t, Webfw } from "../src/index.ts";

interface Todo {
  id: number;
  title: string;
  done: boolean;
}

/** A stand-in for real token validation (docs/mcp-authorization.md shows JWTs with `jose`). */
class DemoAuth extends AuthenticationHandler {
  authenticate(request: Request): Identity | null {
    const token = this.tokenGetter.getToken(request);
    return token === "let-me-write" ? new Identity({ claims: { sub: "demo", scope: "todos:write" } }) : null;
  }
}

const todos = new Map<number, Todo>([[1, { id: 1, title: "Try webfw", done: false }]]);
let nextId = 2;

const app = new Webfw(import.meta.path);
app.configureAuthentication(new DemoAuth());
app.mcp.configure({ serverName: "todos", serverVersion: "1.0.0" });

const Todo = z.object({ id: z.number().int(), title: z.string(), done: z.boolean() });

app.get("/todos", ({ args }) => ({ todos: [...todos.values()].filter((todo) => !args.open || !todo.done) }), {
  args: { open: t.bool().default(false).describe("only the todos not done yet") },
  summary: "List todos",
  responses: { "200": { description: "the todos", schema: z.object({ todos: z.array(Todo) }) } },
  mcp: true,
});

app.get(
  "/todos/:id",
  ({ args }) => {
    const todo = todos.get(args.id);
    if (todo === undefined) throw new HttpError(404, `no todo ${args.id}`);
    return todo;
  },
  {
    args: { id: t.int() },
    summary: "One todo",
    responses: { "200": { description: "the todo", schema: Todo } },
    mcp: true,
  },
);

app.post(
  "/todos",
  ({ parsedBody }) => {
    const todo = { id: nextId++, title: parsedBody.title, done: false };
    todos.set(todo.id, todo);
    return [todo, 201];
  },
  {
    body: z.object({ title: z.string().min(1).describe("what to do") }),
    authRequired: true,
    mcp: { name: "add_todo", description: "Add a todo to the list", scopes: ["todos:write"] },
  },
);

app.delete(
  "/todos/:id",
  ({ args }) => {
    if (!todos.delete(args.id)) throw new HttpError(404, `no todo ${args.id}`);
    return null;
  },
  { args: { id: t.int() }, authRequired: true, mcp: { scopes: ["todos:write"] } },
);

// Not a tool: `mcp` is left out (and `exposeRoutes()` is not called).
app.get("/health", () => "ok");

if (import.meta.main) {
  const server = await app.start();
  console.log(`listening on ${server.url} (MCP at ${server.url}/mcp)`);
}

export default app;
