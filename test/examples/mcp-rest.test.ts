/**
 * examples/mcp-rest.ts: a REST API whose routes are MCP tools, driven by the
 * official SDK client over real HTTP, beside plain HTTP calls of the same routes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import app from "../../examples/mcp-rest.ts";
import type { ServerHandle } from "../../src/index.ts";
import { runInspector } from "../helpers/inspector.ts";

let server: ServerHandle;

async function connect(token?: string): Promise<Client> {
  const client = new Client({ name: "mcp-rest-test", version: "1.0.0" });
  const requestInit = token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit }));
  return client;
}

beforeAll(async () => {
  server = await app.start({ port: 0, host: "127.0.0.1" });
});
afterAll(() => server?.stop(true));

describe("examples/mcp-rest.ts", () => {
  test("the REST API answers as always", async () => {
    const response = await fetch(`${server.url}/todos`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { todos: unknown[] }).todos.length).toBeGreaterThan(0);
    expect((await fetch(`${server.url}/todos/x`)).status).toBe(400);
  });

  test("the marked routes are listed as tools with schemas from the routes", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      "add_todo",
      "delete_todos_by_id",
      "get_todos",
      "get_todos_by_id",
    ]);
    const one = tools.find((tool) => tool.name === "get_todos_by_id");
    expect(one?.inputSchema).toMatchObject({
      type: "object",
      properties: { id: { type: "integer" } },
      required: ["id"],
    });
    expect(one?.outputSchema).toMatchObject({ type: "object", properties: { title: { type: "string" } } });
    expect(one?.annotations).toMatchObject({ readOnlyHint: true, title: "One todo" });
    const add = tools.find((tool) => tool.name === "add_todo");
    expect(add?.description).toBe("Add a todo to the list");
    expect(add?.inputSchema).toMatchObject({
      properties: { title: { type: "string", minLength: 1 } },
      required: ["title"],
    });
    await client.close();
  });

  test("calls run the routes: structured results, the route's own 400/404 as isError", async () => {
    const client = await connect();
    const one = await client.callTool({ name: "get_todos_by_id", arguments: { id: 1 } });
    expect(one.structuredContent).toEqual({ id: 1, title: "Try webfw", done: false });
    expect(one.content).toEqual([{ type: "text", text: '{"id":1,"title":"Try webfw","done":false}' }]);
    const missing = await client.callTool({ name: "get_todos_by_id", arguments: { id: 999 } });
    expect(missing).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "404 Not Found: no todo 999" }],
    });
    const bad = await client.callTool({ name: "get_todos_by_id", arguments: { id: "one" } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain("400 Bad Request");
    expect(JSON.stringify(bad.content)).toContain("'id'");
    const list = await client.callTool({ name: "get_todos", arguments: { open: true } });
    expect((list.structuredContent as { todos: unknown[] }).todos.length).toBeGreaterThan(0);
    await client.close();
  });

  test("writing without a token is a 401 challenge; with the token the route creates the todo", async () => {
    const anonymous = await connect();
    await expect(anonymous.callTool({ name: "add_todo", arguments: { title: "x" } })).rejects.toThrow();
    await anonymous.close();

    const writer = await connect("let-me-write");
    const created = await writer.callTool({ name: "add_todo", arguments: { title: "Ship it" } });
    expect(created.isError).toBeFalsy();
    const todo = created.structuredContent as { id: number; title: string };
    expect(todo.title).toBe("Ship it");
    // The same todo over plain HTTP: one API, two doors.
    expect(await (await fetch(`${server.url}/todos/${todo.id}`)).json()).toEqual({
      id: todo.id,
      title: "Ship it",
      done: false,
    });
    const invalid = await writer.callTool({ name: "add_todo", arguments: { title: "" } });
    expect(invalid.isError).toBe(true);
    expect(JSON.stringify(invalid.content)).toContain("422");
    const deleted = await writer.callTool({ name: "delete_todos_by_id", arguments: { id: todo.id } });
    expect(deleted).toMatchObject({ content: [] });
    expect((await fetch(`${server.url}/todos/${todo.id}`)).status).toBe(404);
    await writer.close();
  });
});

/** The Inspector CLI as the example's header shows it. */
function inspector(...args: string[]) {
  return runInspector(`${server.url}/mcp`, ...args);
}

describe("examples/mcp-rest.ts with the MCP Inspector CLI", () => {
  test("tools/list shows the route tools; tools/call runs a route", async () => {
    const listed = await inspector("--method", "tools/list");
    expect(listed.code).toBe(0);
    const names = (JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    expect(names.sort()).toEqual(["add_todo", "delete_todos_by_id", "get_todos", "get_todos_by_id"]);
    const called = await inspector(
      "--method",
      "tools/call",
      "--tool-name",
      "get_todos_by_id",
      "--tool-arg",
      "id=1",
    );
    expect(called.code).toBe(0);
    expect(JSON.parse(called.stdout)).toMatchObject({ structuredContent: { id: 1, title: "Try webfw" } });
  }, 60_000);
});
