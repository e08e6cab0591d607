/**
 * The showcase: one app that uses most of webfw with no outside services.
 * Run it with `npm start` (or `bun examples/showcase.ts`), then open http://127.0.0.1:8080/.
 */
import {
  AuthenticationHandler,
  BearerGetter,
  HttpError,
  html,
  Identity,
  type Request,
  redirect,
  SubRouter,
  t,
  Webfw,
} from "../src/index.ts";

const app = new Webfw(import.meta.path);

/** Accepts the token `secret-token` (a real app would check a JWT or a session store). */
class DemoAuth extends AuthenticationHandler {
  authenticate(request: Request): Identity | null {
    const token = this.tokenGetter.getToken(request);
    return token === "secret-token" ? new Identity({ claims: { user: "ada", role: "admin" } }) : null;
  }
}
app.configureAuthentication(new DemoAuth(new BearerGetter()));

// An in-memory store handed to every handler through dependency injection.
const todos = new Map<number, { id: number; title: string; done: boolean }>();
let nextId = 1;
app.injectGlobal({ todos });

app.addResponseHeader("x-powered-by", "webfw");

// Timing middleware: before stores the start time, after reports it.
app.beforeRequest((request) => {
  request.state.started = performance.now();
});
app.afterRequest((response, request) => {
  const started = request.state.started as number | undefined;
  if (started !== undefined)
    response.headers.set("server-timing", `app;dur=${(performance.now() - started).toFixed(2)}`);
  return response;
});

app.get("/", () =>
  html(`<!doctype html><title>webfw showcase</title>
<h1>webfw showcase</h1>
<ul>
  <li><a href="/hello/world">/hello/world</a>: a path parameter</li>
  <li><a href="/add?a=2&b=40">/add?a=2&amp;b=40</a>: typed query arguments</li>
  <li><a href="/todos">/todos</a>: JSON from injected state (POST /todos to add)</li>
  <li><a href="/health">/health</a>: a const route, computed once</li>
  <li><a href="/me">/me</a>: needs <code>Authorization: Bearer secret-token</code></li>
  <li><a href="/api/v1/version">/api/v1/version</a>: a sub-router</li>
</ul>`),
);

app.get("/hello/:name", ({ pathParams }) => `Hello, ${pathParams.name}!`);

app.get("/add", ({ args }) => ({ sum: args.a + args.b }), {
  args: { a: t.int(), b: t.int().default(0) },
  summary: "Add two integers",
});

app.get("/todos", ({ globalDependencies }) => [...(globalDependencies.todos as typeof todos).values()]);

app.post(
  "/todos",
  ({ parsedBody, globalDependencies }) => {
    const store = globalDependencies.todos as typeof todos;
    const todo = { id: nextId++, title: parsedBody.title, done: parsedBody.done };
    store.set(todo.id, todo);
    app.publish("todos", JSON.stringify(todo));
    return [todo, 201];
  },
  { body: t.object({ title: t.str(), done: t.bool().default(false) }) },
);

app.delete(
  "/todos/:id",
  ({ args, globalDependencies }) => {
    const store = globalDependencies.todos as typeof todos;
    if (!store.delete(args.id)) throw new HttpError(404, `no todo ${args.id}`);
    return undefined;
  },
  { args: { id: t.int() }, responses: { "404": "No such todo" } },
);

app.get("/health", () => ({ status: "ok", started: new Date().toISOString() }), { const: true });

app.get("/me", ({ identity }) => identity?.claims ?? null, { authRequired: true });

// An old address, moved for good: a 301 with `Location: /`, no body (docs/responses.md, "Redirects").
app.get("/index.html", () => redirect("/", 301), {
  responses: { 301: { description: "Moved for good to `/`", headers: { Location: "Where it is now" } } },
});

const api = new SubRouter(import.meta.path, { prefix: "/api/v1" });
api.inject({ release: "2026.11" });
api.get("/version", ({ routerDependencies }) => ({ version: routerDependencies.release }));
app.includeRouter(api);

// An MCP tool on `POST /mcp` (docs/mcp.md): it adds a todo, and WebSocket clients of /live hear of it.
app.mcp.tool(
  ({ title }) => {
    const todo = { id: nextId++, title, done: false };
    todos.set(todo.id, todo);
    app.publish("todos", JSON.stringify(todo));
    return JSON.stringify(todo);
  },
  { name: "add_todo", description: "Add a todo", args: { title: t.str().describe("what to do") } },
);

// A WebSocket that hears of every new todo (topic `todos`).
const live = app.websocket("/live", async (ws) => {
  for await (const message of ws) await ws.sendText(String(message));
});
live.onConnect((ws) => ws.subscribe("todos"));

// Under `--dev`, the development dashboard is at /_webfw (docs/dashboard.md).
if (import.meta.main) {
  await app.start(); // logs `listening on <url>` (docs/cli.md, "The startup line")
}

export default app;
