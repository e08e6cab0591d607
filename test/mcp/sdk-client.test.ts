/** The official MCP TypeScript SDK client against the endpoint: what real clients need. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { buildMcp, type Served, serve } from "./fixture.ts";

let served: Served;
let client: Client;

beforeAll(async () => {
  served = serve(buildMcp());
  client = new Client({ name: "webfw-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
});

afterAll(async () => {
  await client?.close();
  await served?.stop();
});

describe("SDK client", () => {
  test("connects and negotiates the latest protocol version", () => {
    expect(client.getServerVersion()?.name).toBe("webfw");
    const capabilities = client.getServerCapabilities();
    expect(capabilities?.tools).toBeDefined();
    expect(capabilities?.resources).toBeDefined();
    expect(capabilities?.prompts).toBeDefined();
  });

  test("ping", async () => {
    expect(await client.ping()).toEqual({});
  });

  test("lists and calls tools", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("add");
    const add = tools.find((tool) => tool.name === "add");
    expect(add?.inputSchema.required).toEqual(["a", "b"]);
    const result = await client.callTool({ name: "add", arguments: { a: 20, b: 22 } });
    expect(result).toEqual({ content: [{ type: "text", text: "42" }], isError: false });
  });

  test("a failing tool and a bad argument come back as isError results", async () => {
    const thrown = await client.callTool({ name: "divide", arguments: { a: 1, b: 0 } });
    expect(thrown.isError).toBe(true);
    expect(thrown.content).toEqual([{ type: "text", text: "division by zero" }]);
    const bad = await client.callTool({ name: "add", arguments: { a: "x", b: 1 } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain("'a'");
  });

  test("an unknown tool rejects with -32602", async () => {
    await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  test("lists and reads concrete and templated resources", async () => {
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(["config://app", "broken://x"]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      "greeting://{name}",
      "users://{id}/posts/{post}",
      "files://{+path}",
    ]);
    const concrete = await client.readResource({ uri: "config://app" });
    expect(concrete.contents).toEqual([{ uri: "config://app", mimeType: "text/plain", text: "debug=false" }]);
    const templated = await client.readResource({ uri: "greeting://Grace" });
    expect(templated.contents).toEqual([
      { uri: "greeting://Grace", mimeType: "text/plain", text: "Hello, Grace!" },
    ]);
    await expect(client.readResource({ uri: "nope://x" })).rejects.toMatchObject({ code: -32602 });
  });

  test("lists and gets prompts", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(["review", "facts", "translate", "badPrompt"]);
    const review = await client.getPrompt({ name: "review", arguments: { code: "let x" } });
    expect(review.messages).toEqual([
      { role: "user", content: { type: "text", text: "Please review this code:\n\nlet x" } },
    ]);
    const facts = await client.getPrompt({ name: "facts", arguments: { topic: "bees", count: "2" } });
    expect(facts.messages).toHaveLength(2);
    expect(facts.messages[1]?.role).toBe("assistant");
    await expect(client.getPrompt({ name: "nope" })).rejects.toMatchObject({ code: -32602 });
  });
});

describe("SDK client with an older protocol version", () => {
  test("a client that asks for 2025-03-26 gets it and sends it on every later request", async () => {
    const sentVersions: (string | null)[] = [];
    // Rewrites the client's initialize request as an older client would have sent it.
    const olderFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const headers = new Headers(init?.headers);
      sentVersions.push(headers.get("mcp-protocol-version"));
      let body = init?.body;
      if (typeof body === "string" && body.includes('"initialize"')) {
        body = body.replace(/"protocolVersion":"[^"]+"/, '"protocolVersion":"2025-03-26"');
      }
      return fetch(input, { ...init, body });
    };
    const transport = new StreamableHTTPClientTransport(new URL(served.url), { fetch: olderFetch });
    const other = new Client({ name: "older", version: "0.0.1" });
    try {
      await other.connect(transport);
      expect(transport.protocolVersion).toBe("2025-03-26");
      const result = await other.callTool({ name: "greet", arguments: { name: "Lin" } });
      expect(result.content).toEqual([{ type: "text", text: "Hello, Lin." }]);
      expect(sentVersions[0]).toBeNull();
      expect(sentVersions.at(-1)).toBe("2025-03-26");
    } finally {
      await other.close();
    }
  });
});
