/**
 * Every MCP feature through the official SDK clients, v1 (`@modelcontextprotocol/sdk`)
 * and v2 (`@modelcontextprotocol/client`), against a real webfw server: sampling and
 * elicitation round trips answered by the client, roots, progress, logs with levels,
 * cancellation (the tool's signal fires), identity and dependencies, structured output,
 * the t.list rule, completion, subscriptions and list-changed notifications, pagination.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as v2 from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ServerHandle } from "../../src/launch/server.ts";
import { type FeatureEvents, featuresApp } from "./features-app.ts";

interface Seen {
  logs: string[];
  updated: string[];
  listChanged: number;
}

type Json = Record<string, unknown>;
interface CallOptions {
  signal?: AbortSignal;
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
}
/** What both SDK generations offer, as the tests use it. */
interface McpClient {
  call(name: string, args: Json, options?: CallOptions): Promise<Json>;
  listTools(cursor?: string): Promise<{ tools: Json[]; nextCursor?: string }>;
  complete(params: Json): Promise<{ completion: { values: string[] } }>;
  subscribe(uri: string): Promise<unknown>;
  setLevel(level: "debug" | "info" | "error"): Promise<unknown>;
  version(): string | undefined;
  close(): Promise<void>;
}

const SAMPLED = {
  role: "assistant",
  content: { type: "text", text: "forty-two" },
  model: "test-model",
} as const;
const ELICITED = { action: "accept", content: { ok: true } } as const;
const ROOTS = { roots: [{ uri: "file:///work/a", name: "a" }, { uri: "file:///work/b" }] };

async function v1Client(url: string, headers: Record<string, string>, seen: Seen): Promise<McpClient> {
  const client = new V1Client(
    { name: "v1", version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, async () => SAMPLED);
  client.setRequestHandler(ElicitRequestSchema, async () => ELICITED);
  client.setRequestHandler(ListRootsRequestSchema, async () => ROOTS);
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    seen.logs.push(String(n.params.data));
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    seen.updated.push(n.params.uri);
  });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    seen.listChanged++;
  });
  await client.connect(new V1Transport(new URL(url), { requestInit: { headers } }));
  return {
    call: async (name, args, options) =>
      (await client.callTool({ name, arguments: args }, undefined, options)) as Json,
    listTools: (cursor) => client.listTools(cursor === undefined ? {} : { cursor }) as never,
    complete: (params) => client.complete(params as never) as never,
    subscribe: (uri) => client.subscribeResource({ uri }),
    setLevel: (level) => client.setLoggingLevel(level),
    version: () => client.getServerVersion()?.name,
    close: () => client.close(),
  };
}

async function v2Client(url: string, headers: Record<string, string>, seen: Seen): Promise<McpClient> {
  const client = new v2.Client(
    { name: "v2", version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } },
  );
  client.setRequestHandler("sampling/createMessage", async () => SAMPLED);
  client.setRequestHandler("elicitation/create", async () => ELICITED);
  client.setRequestHandler("roots/list", async () => ROOTS);
  client.setNotificationHandler("notifications/message", (n) => {
    seen.logs.push(String(n.params.data));
  });
  client.setNotificationHandler("notifications/resources/updated", (n) => {
    seen.updated.push(n.params.uri);
  });
  client.setNotificationHandler("notifications/tools/list_changed", () => {
    seen.listChanged++;
  });
  await client.connect(new v2.StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return {
    call: async (name, args, options) => (await client.callTool({ name, arguments: args }, options)) as Json,
    listTools: (cursor) => client.listTools(cursor === undefined ? {} : { cursor }) as never,
    complete: (params) => client.complete(params as never) as never,
    subscribe: (uri) => client.subscribeResource({ uri }),
    setLevel: (level) => client.setLoggingLevel(level),
    version: () => client.getServerVersion()?.name,
    close: () => client.close(),
  };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await Bun.sleep(10);
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

const text = (result: Json) => ((result.content as { text?: string }[])[0]?.text ?? "") as string;

for (const [flavor, connect] of [
  ["SDK v1 client", v1Client],
  ["SDK v2 client", v2Client],
] as const) {
  describe(flavor, () => {
    const events: FeatureEvents = { cancelled: [], finished: [] };
    const app = featuresApp(events);
    const seen: Seen = { logs: [], updated: [], listChanged: 0 };
    let server: ServerHandle;
    let client: McpClient;

    beforeAll(async () => {
      server = await app.start({ port: 0, host: "127.0.0.1", handleSignals: false });
      const url = `http://127.0.0.1:${server.port}/mcp`;
      client = await connect(url, { authorization: "Bearer alice-token", "x-trace": "t-1" }, seen);
    });
    afterAll(async () => {
      await client?.close();
      await server?.stop();
    });

    test("sampling: the tool asks, the client's handler answers", async () => {
      expect(text(await client.call("ask", { question: "meaning?" }))).toBe(
        "model said: forty-two (test-model)",
      );
    });

    test("elicitation: the tool asks the user, the client answers", async () => {
      expect(text(await client.call("confirm", {}))).toBe("action=accept ok=true");
    });

    test("roots: the tool lists the client's roots", async () => {
      expect(text(await client.call("roots", {}))).toBe("file:///work/a,file:///work/b");
    });

    test("progress and logs arrive during the call; logging/setLevel filters", async () => {
      const progress: string[] = [];
      seen.logs.length = 0;
      await client.setLevel("info");
      const result = await client.call(
        "work",
        { steps: 3 },
        { onprogress: (p) => progress.push(`${p.progress}/${p.total} ${p.message}`) },
      );
      expect(text(result)).toBe("did 3 steps");
      expect(progress).toEqual(["1/3 step 1 of 3", "2/3 step 2 of 3", "3/3 step 3 of 3"]);
      expect(seen.logs).toEqual(["step 1", "step 2", "step 3"]);
      seen.logs.length = 0;
      await client.setLevel("error");
      await client.call("work", { steps: 1 });
      expect(seen.logs).toEqual([]);
      await client.setLevel("debug");
      await client.call("work", { steps: 1 });
      expect(seen.logs).toEqual(["step 1", "detail 1"]);
    });

    test("cancellation: aborting the call fires the tool's signal", async () => {
      const controller = new AbortController();
      const call = client.call("slow", { id: flavor }, { signal: controller.signal });
      await Bun.sleep(100);
      controller.abort("user gave up");
      await expect(call).rejects.toBeDefined();
      await until(() => events.cancelled.includes(flavor), "the tool's signal");
      expect(events.finished).not.toContain(flavor);
    });

    test("identity, dependencies and the HTTP request reach ctx", async () => {
      expect(text(await client.call("whoami", {}))).toBe("alice hello t-1");
    });

    test("structured output with outputSchema; title, annotations and icons listed", async () => {
      const result = await client.call("sum", { a: 2, b: 40 });
      expect(result.structuredContent).toEqual({ sum: 42 });
      expect(text(result)).toBe('{"sum":42}');
      const all: Json[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor);
        all.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      const sum = all.find((tool) => tool.name === "sum") as Json;
      expect(sum.title).toBe("Sum");
      expect(sum.annotations).toEqual({ readOnlyHint: true });
      expect(sum.icons).toEqual([{ src: "https://example.com/sum.png", mimeType: "image/png" }]);
      expect(sum.outputSchema).toEqual({
        type: "object",
        properties: { sum: { type: "number" } },
        required: ["sum"],
      });
    });

    test("pagination: pages of 3 cover every tool once; a bad cursor is -32602", async () => {
      const names: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await client.listTools(cursor);
        names.push(...page.tools.map((tool) => String(tool.name)));
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== undefined);
      // v1 hands out the server's pages; v2's listTools() follows nextCursor itself and returns them all.
      if (flavor === "SDK v1 client") expect(pages).toBe(Math.ceil(names.length / 3));
      else expect(pages).toBe(1);
      expect(new Set(names).size).toBe(names.length);
      expect(names).toContain("ask");
      expect(names).toContain("increment");
      const bad = await client.listTools("not-a-cursor").then(
        () => null,
        (error: { code?: number }) => error,
      );
      expect(bad?.code).toBe(-32602);
    });

    test("a t.list argument without a default is required (isError naming it)", async () => {
      const missing = await client.call("join", {});
      expect(missing.isError).toBe(true);
      expect(text(missing)).toContain("'tags'");
      expect(text(await client.call("join", { tags: ["a", "b"] }))).toBe("a+b");
    });

    test("completion/complete for prompt arguments and URI placeholders", async () => {
      const prompt = await client.complete({
        ref: { type: "ref/prompt", name: "style" },
        argument: { name: "language", value: "go" },
      });
      expect(prompt.completion.values).toEqual(["go", "golang"]);
      const resource = await client.complete({
        ref: { type: "ref/resource", uri: "users://{id}/profile" },
        argument: { name: "id", value: "al" },
      });
      expect(resource.completion.values).toEqual(["alice", "albert"]);
    });

    test("subscriptions: notifyResourceUpdated reaches a subscribed session", async () => {
      await client.subscribe("counter://value");
      await client.call("increment", {});
      await until(() => seen.updated.includes("counter://value"), "notifications/resources/updated");
    });

    test("list-changed: a tool added at run time is announced", async () => {
      const before = seen.listChanged;
      app.mcp.tool(() => "new", { name: `late_${flavor.replaceAll(" ", "_")}`, description: "added late" });
      await until(() => seen.listChanged > before, "notifications/tools/list_changed");
    });
  });
}
