/** Raw JSON-RPC over HTTP: every row of the table in docs/mcp.md, and the malformed inputs. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AuthenticationHandler, BearerGetter } from "../../src/auth/handler.ts";
import { Identity } from "../../src/auth/identity.ts";
import type { Request as WebfwRequest } from "../../src/http/request.ts";
import { Mcp } from "../../src/mcp/index.ts";
import { buildMcp, endpointOf, type Served, serve } from "./fixture.ts";

let served: Served;
beforeAll(() => {
  // The raw JSON-RPC table runs against the stateless mode: every POST stands alone (sessions: sessions.test.ts).
  served = serve(buildMcp().configure({ stateless: true }));
});
afterAll(async () => {
  await served.stop();
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test reads arbitrary JSON shapes
  body: any;
}

async function post(body: unknown, headers: Record<string, string> = {}, raw = false): Promise<Answer> {
  const response = await fetch(served.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: raw ? (body as string) : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

function call(id: unknown, method: string, params?: unknown): Promise<Answer> {
  const message: Record<string, unknown> = { jsonrpc: "2.0", id, method };
  if (params !== undefined) message.params = params;
  return post(message);
}

/** Walks a JSON value and lists the paths whose value is null. */
function nullPaths(value: unknown, path = "$"): string[] {
  if (value === null) return [path];
  if (Array.isArray(value)) return value.flatMap((item, index) => nullPaths(item, `${path}[${index}]`));
  if (typeof value === "object") {
    return Object.entries(value as Record<string, unknown>).flatMap(([key, item]) =>
      nullPaths(item, `${path}.${key}`),
    );
  }
  return [];
}

describe("initialize", () => {
  test("echoes a supported protocol version and advertises all three capabilities", async () => {
    for (const version of ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]) {
      const answer = await call(1, "initialize", {
        protocolVersion: version,
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toBe("application/json");
      expect(answer.body.jsonrpc).toBe("2.0");
      expect(answer.body.id).toBe(1);
      expect(answer.body.result.protocolVersion).toBe(version);
      expect(Object.keys(answer.body.result.capabilities).sort()).toEqual([
        "completions",
        "logging",
        "prompts",
        "resources",
        "tools",
      ]);
      expect(answer.body.result.serverInfo.name).toBe("webfw");
      expect(typeof answer.body.result.serverInfo.version).toBe("string");
      expect(nullPaths(answer.body)).toEqual([]);
    }
  });

  test("answers the latest version to an unknown one; malformed initialize params are -32602", async () => {
    const client = { capabilities: {}, clientInfo: { name: "raw", version: "1" } };
    expect(
      (await call(2, "initialize", { protocolVersion: "1999-01-01", ...client })).body.result.protocolVersion,
    ).toBe("2025-11-25");
    const wrongType = await call(3, "initialize", { protocolVersion: 7, ...client });
    expect(wrongType.body.error.code).toBe(-32602);
    expect(wrongType.body.error.message).toContain("protocolVersion");
    expect((await call(4, "initialize")).body.error.code).toBe(-32602);
  });

  test("id 0 and string ids are echoed exactly", async () => {
    expect((await call(0, "ping")).body).toEqual({ jsonrpc: "2.0", id: 0, result: {} });
    expect((await call("abc-0", "ping")).body).toEqual({ jsonrpc: "2.0", id: "abc-0", result: {} });
    expect((await call("", "ping")).body.id).toBe("");
  });
});

describe("notifications and client responses", () => {
  test("notifications/initialized gets 202 with an empty body", async () => {
    const answer = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(answer.status).toBe(202);
    expect(answer.text).toBe("");
  });

  test("an unknown notification is still 202 (notifications are never answered)", async () => {
    const answer = await post({ jsonrpc: "2.0", method: "no/such/thing", params: {} });
    expect(answer.status).toBe(202);
    expect(answer.text).toBe("");
  });

  test("a JSON-RPC response posted by the client is acknowledged with 202", async () => {
    const answer = await post({ jsonrpc: "2.0", id: 9, result: {} });
    expect(answer.status).toBe(202);
    expect(answer.text).toBe("");
  });
});

describe("ping", () => {
  test("returns an empty result", async () => {
    const answer = await call(5, "ping");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ jsonrpc: "2.0", id: 5, result: {} });
  });
});

describe("tools", () => {
  test("tools/list gives names, descriptions and schemas from args", async () => {
    const answer = await call(1, "tools/list");
    expect(answer.status).toBe(200);
    expect(nullPaths(answer.body)).toEqual([]);
    const tools = answer.body.result.tools;
    expect(tools.map((tool: { name: string }) => tool.name)).toEqual([
      "add",
      "greet",
      "divide",
      "summarise",
      "weather",
      "noArgs",
    ]);
    expect(tools[0]).toEqual({
      name: "add",
      description: "Add two integers",
      inputSchema: {
        type: "object",
        properties: { a: { type: "integer" }, b: { type: "integer", description: "second operand" } },
        required: ["a", "b"],
      },
    });
    expect(tools[1].inputSchema).toEqual({
      type: "object",
      properties: { name: { type: "string" }, excited: { type: "boolean", default: false } },
      required: ["name"],
    });
    expect(tools[1].description).toBeUndefined();
    // A t.list without a default is required for a tool (a route would read it as []).
    expect(tools[3].inputSchema).toEqual({
      required: ["items"],
      type: "object",
      properties: { items: { type: "array", items: { type: "string" } }, meta: { type: "object" } },
    });
    expect(tools[4].inputSchema).toEqual({
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    });
    expect(tools[5].inputSchema).toEqual({ type: "object", properties: {} });
  });

  test("tools/call converts arguments and returns text", async () => {
    const answer = await call(2, "tools/call", { name: "add", arguments: { a: 2, b: 40 } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: { content: [{ type: "text", text: "42" }], isError: false },
    });
  });

  test("async tools and defaults", async () => {
    const plain = await call(3, "tools/call", { name: "greet", arguments: { name: "Ada" } });
    expect(plain.body.result).toEqual({ content: [{ type: "text", text: "Hello, Ada." }], isError: false });
    const excited = await call(4, "tools/call", { name: "greet", arguments: { name: "Ada", excited: true } });
    expect(excited.body.result.content[0].text).toBe("Hello, Ada!");
  });

  test("non-string results are sent as JSON text", async () => {
    const answer = await call(5, "tools/call", { name: "summarise", arguments: { items: ["x", "y"] } });
    expect(answer.body.result.isError).toBe(false);
    expect(JSON.parse(answer.body.result.content[0].text)).toEqual({ count: 2, items: ["x", "y"] });
    const number = await call(6, "tools/call", { name: "divide", arguments: { a: 1, b: 4 } });
    expect(number.body.result.content[0].text).toBe("0.25");
  });

  test("a tool that throws gives isError with the message", async () => {
    const answer = await call(7, "tools/call", { name: "divide", arguments: { a: 1, b: 0 } });
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe(7);
    expect(answer.body.result).toEqual({
      content: [{ type: "text", text: "division by zero" }],
      isError: true,
    });
  });

  test("bad arguments give isError naming the argument", async () => {
    const wrongType = await call(8, "tools/call", { name: "add", arguments: { a: "two", b: 1 } });
    expect(wrongType.status).toBe(200);
    expect(wrongType.body.result.isError).toBe(true);
    expect(wrongType.body.result.content[0].text).toContain("'a'");
    const missing = await call(9, "tools/call", { name: "add", arguments: { a: 1 } });
    expect(missing.body.result.isError).toBe(true);
    expect(missing.body.result.content[0].text).toContain("'b'");
    const noArguments = await call(10, "tools/call", { name: "add" });
    expect(noArguments.body.result.isError).toBe(true);
    expect(noArguments.body.result.content[0].text).toContain("'a'");
    const nested = await call(11, "tools/call", { name: "summarise", arguments: { items: ["ok", 3] } });
    expect(nested.body.result.isError).toBe(true);
    expect(nested.body.result.content[0].text).toContain("items[1]");
    const explicit = await call(12, "tools/call", { name: "weather", arguments: {} });
    expect(explicit.body.result).toEqual({
      content: [{ type: "text", text: "missing required argument 'city'" }],
      isError: true,
    });
    const explicitOk = await call(13, "tools/call", { name: "weather", arguments: { city: "Oslo" } });
    expect(explicitOk.body.result.content[0].text).toBe("sunny in Oslo");
  });

  test("numeric strings are accepted for int arguments (t semantics)", async () => {
    const answer = await call(14, "tools/call", { name: "add", arguments: { a: "2", b: 3 } });
    expect(answer.body.result).toEqual({ content: [{ type: "text", text: "5" }], isError: false });
  });

  test("unknown tool, missing name, non-object arguments: -32602 with the id", async () => {
    const unknown = await call(15, "tools/call", { name: "nope", arguments: {} });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({
      jsonrpc: "2.0",
      id: 15,
      error: { code: -32602, message: "unknown tool 'nope'" },
    });
    const noParams = await call(16, "tools/call");
    expect(noParams.body.id).toBe(16);
    expect(noParams.body.error.code).toBe(-32602);
    const noName = await call(0, "tools/call", { arguments: {} });
    expect(noName.body.id).toBe(0);
    expect(noName.body.error.code).toBe(-32602);
    const badArguments = await call(17, "tools/call", { name: "add", arguments: [1, 2] });
    expect(badArguments.body.error.code).toBe(-32602);
    const arrayParams = await call(18, "tools/call", ["add"]);
    expect(arrayParams.body.error.code).toBe(-32602);
  });
});

describe("resources", () => {
  test("resources/list has only concrete URIs", async () => {
    const answer = await call(1, "resources/list");
    expect(answer.status).toBe(200);
    expect(nullPaths(answer.body)).toEqual([]);
    expect(answer.body.result.resources).toEqual([
      { uri: "config://app", name: "config", mimeType: "text/plain" },
      { uri: "broken://x", name: "broken://x" },
    ]);
  });

  test("resources/templates/list has the URIs with {param}", async () => {
    const answer = await call(2, "resources/templates/list");
    expect(nullPaths(answer.body)).toEqual([]);
    expect(answer.body.result.resourceTemplates).toEqual([
      { uriTemplate: "greeting://{name}", name: "greeting://{name}", description: "A greeting" },
      { uriTemplate: "users://{id}/posts/{post}", name: "post", mimeType: "application/json" },
      { uriTemplate: "files://{+path}", name: "file" },
    ]);
  });

  test("resources/read of a concrete URI", async () => {
    const answer = await call(3, "resources/read", { uri: "config://app" });
    expect(answer.body).toEqual({
      jsonrpc: "2.0",
      id: 3,
      result: { contents: [{ uri: "config://app", mimeType: "text/plain", text: "debug=false" }] },
    });
  });

  test("resources/read of a template extracts the placeholders", async () => {
    const greeting = await call(4, "resources/read", { uri: "greeting://Ada%20Lovelace" });
    expect(greeting.body.result.contents).toEqual([
      { uri: "greeting://Ada%20Lovelace", mimeType: "text/plain", text: "Hello, Ada Lovelace!" },
    ]);
    const post = await call(5, "resources/read", { uri: "users://7/posts/42" });
    expect(post.body.result.contents[0].mimeType).toBe("application/json");
    expect(JSON.parse(post.body.result.contents[0].text)).toEqual({ id: "7", post: "42" });
    const file = await call(6, "resources/read", { uri: "files://a/b/c.txt" });
    expect(file.body.result.contents[0].text).toBe("file at a/b/c.txt");
  });

  test("unknown URI, missing uri, and a slash inside {param}: -32602", async () => {
    for (const uri of ["nope://x", "greeting://", "greeting://a/b", "users://7/posts/", "config://app/"]) {
      const answer = await call(7, "resources/read", { uri });
      expect(answer.status).toBe(200);
      expect(answer.body.id).toBe(7);
      expect(answer.body.error.code).toBe(-32602);
      expect(answer.body.error.message).toContain(uri);
    }
    const missing = await call(8, "resources/read", {});
    expect(missing.body.error.code).toBe(-32602);
    const notString = await call(9, "resources/read", { uri: 5 });
    expect(notString.body.error.code).toBe(-32602);
  });

  test("a resource function that throws gives -32603 with its message, still HTTP 200", async () => {
    const answer = await call(10, "resources/read", { uri: "broken://x" });
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe(10);
    expect(answer.body.error.code).toBe(-32603);
    expect(answer.body.error.message).toContain("disk on fire");
  });
});

describe("prompts", () => {
  test("prompts/list with arguments from args and explicit lists", async () => {
    const answer = await call(1, "prompts/list");
    expect(nullPaths(answer.body)).toEqual([]);
    expect(answer.body.result.prompts).toEqual([
      {
        name: "review",
        description: "Review code",
        arguments: [{ name: "code", description: "the code", required: true }],
      },
      {
        name: "facts",
        arguments: [
          { name: "topic", required: true },
          { name: "count", required: false },
        ],
      },
      { name: "translate", arguments: [{ name: "lang", description: "target language", required: true }] },
      { name: "badPrompt", arguments: [] },
    ]);
  });

  test("a string becomes one user message", async () => {
    const answer = await call(2, "prompts/get", { name: "review", arguments: { code: "x = 1" } });
    expect(answer.body.result).toEqual({
      description: "Review code",
      messages: [{ role: "user", content: { type: "text", text: "Please review this code:\n\nx = 1" } }],
    });
  });

  test("a message list is passed through, string arguments converted by specs", async () => {
    const answer = await call(3, "prompts/get", { name: "facts", arguments: { topic: "owls", count: "5" } });
    expect(answer.body.result.messages).toEqual([
      { role: "user", content: { type: "text", text: "Tell me 5 facts about owls" } },
      { role: "assistant", content: { type: "text", text: "Sure." } },
    ]);
    const defaulted = await call(4, "prompts/get", { name: "facts", arguments: { topic: "owls" } });
    expect(defaulted.body.result.messages[0].content.text).toBe("Tell me 3 facts about owls");
  });

  test("bad or missing prompt arguments, unknown prompt: -32602", async () => {
    const bad = await call(5, "prompts/get", { name: "facts", arguments: { topic: "owls", count: "many" } });
    expect(bad.body.error.code).toBe(-32602);
    expect(bad.body.error.message).toContain("'count'");
    const missing = await call(6, "prompts/get", { name: "review", arguments: {} });
    expect(missing.body.error.code).toBe(-32602);
    expect(missing.body.error.message).toContain("'code'");
    const explicit = await call(7, "prompts/get", { name: "translate" });
    expect(explicit.body.error).toEqual({ code: -32602, message: "missing required argument 'lang'" });
    const unknown = await call(8, "prompts/get", { name: "nope" });
    expect(unknown.body).toEqual({
      jsonrpc: "2.0",
      id: 8,
      error: { code: -32602, message: "unknown prompt 'nope'" },
    });
    const noParams = await call(9, "prompts/get");
    expect(noParams.body.error.code).toBe(-32602);
  });

  test("a prompt returning an invalid message is an error, not a crash", async () => {
    const answer = await call(10, "prompts/get", { name: "badPrompt" });
    expect(answer.status).toBe(200);
    expect(answer.body.error.code).toBe(-32603);
  });
});

describe("protocol errors", () => {
  test("unknown method: -32601 with the id", async () => {
    const answer = await call(42, "tools/destroy");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      jsonrpc: "2.0",
      id: 42,
      error: { code: -32601, message: "Method not found" },
    });
    // Names of Object.prototype members are not methods either.
    expect((await call(43, "constructor")).body.error.code).toBe(-32601);
    expect((await call(44, "__proto__")).body.error.code).toBe(-32601);
  });

  test("invalid JSON: 400 -32700 id null", async () => {
    for (const text of ['{"jsonrpc":"2.0",', "", "nope", '{"a":1}}', "\u0000"]) {
      const answer = await post(text, {}, true);
      expect(answer.status).toBe(400);
      expect(answer.body.id).toBeNull();
      expect(answer.body.error.code).toBe(-32700);
    }
  });

  test("invalid UTF-8: 400 -32700", async () => {
    const response = await fetch(served.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe(-32700);
  });

  test("JSON nested deeper than 128: 400 -32700", async () => {
    const deep = `${"[".repeat(129)}${"]".repeat(129)}`;
    const answer = await post(deep, {}, true);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(-32700);
    // 128 levels are fine JSON; an array of arrays is not a request though.
    const ok = await post(`${"[".repeat(128)}${"]".repeat(128)}`, {}, true);
    expect(ok.body?.error?.code ?? ok.body[0].error.code).not.toBe(-32700);
  });

  test("not a JSON-RPC request object: 400 -32600 id null", async () => {
    const cases: unknown[] = [
      42,
      "ping",
      null,
      true,
      { id: 1, method: "ping" },
      { jsonrpc: "1.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: 1 },
      { jsonrpc: "2.0", id: 1, method: 5 },
      { jsonrpc: "2.0", id: 1, method: "" },
      { jsonrpc: "2.0", id: null, method: "ping" },
      { jsonrpc: "2.0", id: { x: 1 }, method: "ping" },
      { jsonrpc: "2.0", id: 1, method: "ping", params: "x" },
      { jsonrpc: "2.0", id: 1, method: "ping", params: null },
    ];
    for (const message of cases) {
      const answer = await post(message);
      expect(answer.status).toBe(400);
      expect(answer.body.jsonrpc).toBe("2.0");
      expect(answer.body.id).toBeNull();
      expect(answer.body.error.code).toBe(-32600);
    }
  });

  test("unsupported MCP-Protocol-Version header: 400 -32600; supported ones pass", async () => {
    const bad = await post(
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { "mcp-protocol-version": "2099-01-01" },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe(-32600);
    expect(bad.body.error.message).toContain("2099-01-01");
    for (const version of ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]) {
      const good = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-protocol-version": version });
      expect(good.status).toBe(200);
    }
  });

  test("a body that is not JSON by Content-Type: 415", async () => {
    const answer = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { "content-type": "text/plain" });
    expect(answer.status).toBe(415);
    expect(answer.body.error.code).toBe(-32600);
    const withCharset = await post(
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { "content-type": "application/json; charset=utf-8" },
    );
    expect(withCharset.status).toBe(200);
  });

  test("a body over 4 MiB: 413", async () => {
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "ping",
      params: { pad: "x".repeat(4 * 1024 * 1024) },
    });
    const answer = await post(big, {}, true);
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe(-32600);
  });

  test("a body over the limit without Content-Length (streamed): 413", async () => {
    const chunk = new Uint8Array(1024 * 1024).fill(0x20);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 5) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    const response = await fetch(served.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
    });
    expect(response.status).toBe(413);
    await response.body?.cancel();
  });
});

describe("batches", () => {
  test("a batch gets an array of answers (any order, as JSON-RPC allows), notifications left out", async () => {
    const answer = await post([
      { jsonrpc: "2.0", id: 0, method: "ping" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: "b", method: "tools/call", params: { name: "add", arguments: { a: 1, b: 1 } } },
      { jsonrpc: "2.0", id: 3, method: "nope" },
    ]);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/json");
    const byId = new Map<unknown, unknown>((answer.body as { id: unknown }[]).map((item) => [item.id, item]));
    expect(byId.size).toBe(3);
    expect(byId.get(0)).toEqual({ jsonrpc: "2.0", id: 0, result: {} });
    expect(byId.get("b")).toEqual({
      jsonrpc: "2.0",
      id: "b",
      result: { content: [{ type: "text", text: "2" }], isError: false },
    });
    expect(byId.get(3)).toEqual({
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32601, message: "Method not found" },
    });
  });

  test("a batch with a malformed element is refused whole: 400 -32600", async () => {
    const answer = await post([{ jsonrpc: "2.0", id: 0, method: "ping" }, 7]);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "invalid request: a JSON-RPC message must be an object" },
    });
  });

  test("a batch of notifications only: 202", async () => {
    const answer = await post([{ jsonrpc: "2.0", method: "notifications/initialized" }]);
    expect(answer.status).toBe(202);
    expect(answer.text).toBe("");
  });

  test("an empty or oversized batch: 400 -32600", async () => {
    const empty = await post([]);
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe(-32600);
    const huge = await post(Array.from({ length: 101 }, (_, id) => ({ jsonrpc: "2.0", id, method: "ping" })));
    expect(huge.status).toBe(400);
    expect(huge.body.error.code).toBe(-32600);
  });
});

describe("HTTP methods", () => {
  for (const method of ["GET", "DELETE", "PUT", "PATCH"]) {
    test(`${method} gets 405 with Allow: POST, OPTIONS (stateless: no GET stream, no DELETE)`, async () => {
      const response = await fetch(served.url, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST, OPTIONS");
      await response.body?.cancel();
    });
  }
});

describe("configuration", () => {
  test("serverName, serverVersion and instructions appear in initialize", async () => {
    const mcp = new Mcp().configure({ serverName: "demo", serverVersion: "9.9.9", instructions: "be nice" });
    mcp.tool(function hello() {
      return "hi";
    });
    const own = serve(mcp);
    try {
      const response = await fetch(own.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "raw", version: "1" },
          },
        }),
      });
      const body = await response.json();
      expect(body.result.serverInfo).toEqual({ name: "demo", version: "9.9.9" });
      expect(body.result.instructions).toBe("be nice");
    } finally {
      await own.stop();
    }
  });

  test("Origin allow-list: others get 403, allowed ones and requests without Origin pass", async () => {
    const mcp = buildMcp().configure({ allowedOrigins: ["https://app.example.com/"], stateless: true });
    const own = serve(mcp);
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    try {
      const evil = await fetch(own.url, {
        method: "POST",
        headers: { "content-type": "application/json", origin: "http://evil.example" },
        body: ping,
      });
      expect(evil.status).toBe(403);
      expect((await evil.json()).error.code).toBe(-32600);
      const good = await fetch(own.url, {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://APP.example.com" },
        body: ping,
      });
      expect(good.status).toBe(200);
      expect(good.headers.get("access-control-allow-origin")).toBe("https://APP.example.com");
      await good.body?.cancel();
      const none = await fetch(own.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: ping,
      });
      expect(none.status).toBe(200);
      await none.body?.cancel();
      const preflight = await fetch(own.url, {
        method: "OPTIONS",
        headers: { origin: "https://app.example.com", "access-control-request-method": "POST" },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
      const badPreflight = await fetch(own.url, {
        method: "OPTIONS",
        headers: { origin: "http://evil.example" },
      });
      expect(badPreflight.status).toBe(403);
      await badPreflight.body?.cancel();
    } finally {
      await own.stop();
    }
  });

  test("authRequired: 401 with WWW-Authenticate: Bearer unless the auth callback accepts", async () => {
    const mcp = buildMcp().configure({ authRequired: true, stateless: true });
    const seen: string[] = [];
    const own = serve(
      mcp,
      new (class extends AuthenticationHandler {
        authenticate(request: WebfwRequest) {
          const token = request.raw.headers.get("authorization") ?? "";
          seen.push(token);
          return token === "Bearer good" ? new Identity({ claims: { sub: "me" } }) : null;
        }
      })(new BearerGetter()),
    );
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    try {
      const anonymous = await fetch(own.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: ping,
      });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get("www-authenticate")).toBe("Bearer");
      expect((await anonymous.json()).error.code).toBe(-32001);
      const wrong = await fetch(own.url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer bad" },
        body: ping,
      });
      expect(wrong.status).toBe(401);
      await wrong.body?.cancel();
      const right = await fetch(own.url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer good" },
        body: ping,
      });
      expect(right.status).toBe(200);
      expect(await right.json()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
      expect(seen).toEqual(["", "Bearer bad", "Bearer good"]);
    } finally {
      await own.stop();
    }
  });

  test("authRequired without an auth callback fails closed; a throwing callback is a 401, not a 500", async () => {
    const mcp = buildMcp().configure({ authRequired: true });
    const request = () =>
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
    expect((await endpointOf(mcp).handle(request())).status).toBe(401);
    const throwing = endpointOf(
      mcp,
      new (class extends AuthenticationHandler {
        authenticate(): Identity {
          throw new Error("token store down");
        }
      })(new BearerGetter()),
    );
    expect((await throwing.handle(request())).status).toBe(401);
  });
});

describe("a consumed body", () => {
  test("is a 400, not a crash", async () => {
    const request = new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "ignored",
    });
    await request.arrayBuffer(); // the stream is gone, as after a router that buffers bodies
    const response = await endpointOf(buildMcp()).handle(request);
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe(-32600);
  });
});

describe("registration", () => {
  test("active only once something is registered", () => {
    const mcp = new Mcp();
    expect(mcp.active).toBe(false);
    mcp.resource("a://b", () => "x");
    expect(mcp.active).toBe(true);
    expect(new Mcp().prompt(() => "x", { name: "p" }).active).toBe(true);
  });

  test("anonymous functions need a name; duplicates and bad templates are refused", () => {
    const mcp = new Mcp();
    expect(() => mcp.tool(() => "x")).toThrow(/needs a name/);
    expect(() => mcp.prompt(() => "x")).toThrow(/needs a name/);
    mcp.tool(() => "x", { name: "t" });
    expect(() => mcp.tool(() => "y", { name: "t" })).toThrow(/already registered/);
    expect(() => mcp.resource("x://{a}{b}", () => "")).toThrow(/separated/);
    expect(() => mcp.resource("x://{a", () => "")).toThrow(/unclosed/);
    expect(() => mcp.resource("x://a}", () => "")).toThrow(/unmatched/);
    expect(() => mcp.resource("x://{a b}", () => "")).toThrow(/unsupported placeholder/);
    expect(() => mcp.tool(() => "x", { name: "s", inputSchema: { type: "string" } })).toThrow(/object/);
    expect(() => mcp.configure({ maxBodySize: 0 })).toThrow(/maxBodySize/);
  });
});
