/**
 * MCP sessions with `--processes 2`: every request goes on a fresh connection,
 * so the kernel (reusePort) spreads them over both processes, and everything
 * must still reach the session's own process: follow-up calls, the client's
 * answer to a sampling request, resource-update notifications from a call
 * that ran in the other process, and a resumed stream.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { launchProgram, type Program, pidOf, waitFor } from "../faults/spawn.ts";
import { runInspector } from "../helpers/inspector.ts";

const APP = join(import.meta.dir, "../../examples/mcp-cluster.ts");
let program: Program;
const clients: Client[] = [];

/** A fetch that never reuses a connection: each request may land on either process. */
const freshConnection = (input: string | URL | globalThis.Request, init?: RequestInit) => {
  const headers = new Headers(init?.headers);
  headers.set("connection", "close");
  return fetch(input, { ...init, headers, keepalive: false });
};

async function connect(updated: string[] = [], token?: string): Promise<Client> {
  const client = new Client({ name: "p", version: "1" }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: "assistant",
    content: { type: "text", text: "sampled" },
    model: "m",
  }));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updated.push(n.params.uri);
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${program.url}/mcp`), {
      fetch: freshConnection as typeof fetch,
      ...(token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    }),
  );
  clients.push(client);
  return client;
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

beforeAll(async () => {
  program = await launchProgram(APP, ["--processes", "2"], { listening: 2 });
  // Both processes must be serving before the spreading means anything.
  await waitFor(
    async () => {
      const pids = new Set<number>();
      for (let i = 0; i < 30; i++) {
        const pid = await pidOf(program.port);
        if (pid !== null) pids.add(pid);
      }
      return pids.size === 2 ? pids : undefined;
    },
    15_000,
    "both processes",
  );
}, 40_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  expect(await program?.stop("SIGTERM")).toBe(0);
});

describe("MCP over --processes 2", () => {
  test("every call of a session runs in the process that owns it", async () => {
    const client = await connect();
    const pids = new Set<string>();
    for (let i = 0; i < 12; i++) pids.add(text(await client.callTool({ name: "pid", arguments: {} })));
    expect(pids.size).toBe(1);
  }, 30_000);

  test("sessions are spread over both processes", async () => {
    const owners = new Set<string>();
    // The kernel hashes each new connection to a process: 8 sessions all landed on one about once
    // in 128 runs (2 × 2⁻⁸); 24 tries make that 2⁻²³. The loop stops at the second owner.
    for (let i = 0; i < 24 && owners.size < 2; i++) {
      const client = await connect();
      owners.add(text(await client.callTool({ name: "pid", arguments: {} })));
    }
    expect(owners.size).toBe(2);
  }, 30_000);

  test("a sampling round trip whose answer may land on the other process", async () => {
    const client = await connect();
    const owner = text(await client.callTool({ name: "pid", arguments: {} }));
    for (let i = 0; i < 4; i++) {
      const result = await client.callTool({ name: "ask", arguments: { question: "q" } });
      expect(text(result)).toBe(`sampled (asked by ${owner})`);
    }
  }, 30_000);

  test("a resource update from a call in any process reaches every subscribed session", async () => {
    const seenA: string[] = [];
    const seenB: string[] = [];
    const a = await connect(seenA);
    const b = await connect(seenB);
    await a.subscribeResource({ uri: "counter://value" });
    await b.subscribeResource({ uri: "counter://value" });
    // Calls from new sessions run in either process; both subscribers hear of every one.
    for (let i = 0; i < 4; i++) {
      const caller = await connect();
      await caller.callTool({ name: "increment", arguments: {} });
    }
    await waitFor(() => seenA.length >= 4 && seenB.length >= 4, 10_000, "4 updates in both sessions");
  }, 30_000);

  test("the Inspector CLI, run after run (each run its own session, on either process)", async () => {
    const owners = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const run = await runInspector(`${program.url}/mcp`, "--method", "tools/call", "--tool-name", "pid");
      expect(run.code).toBe(0);
      owners.add(text(JSON.parse(run.stdout)));
    }
    expect(owners.size).toBeGreaterThanOrEqual(1);
  }, 60_000);

  test("a stream dropped mid-call resumes through either process", async () => {
    const client = await connect();
    const owner = text(await client.callTool({ name: "pid", arguments: {} }));
    const transport = (client as unknown as { transport: { sessionId?: string } }).transport;
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": transport.sessionId ?? "",
      "mcp-protocol-version": "2025-11-25",
    };
    const controller = new AbortController();
    const call = await freshConnection(`${program.url}/mcp`, {
      method: "POST",
      headers,
      signal: controller.signal,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 77,
        method: "tools/call",
        params: { name: "slow", arguments: { ms: 400 }, _meta: { progressToken: 1 } },
      }),
    });
    const reader = (call.body as ReadableStream<Uint8Array>).getReader();
    let seen = "";
    while (!seen.includes("progress")) {
      const { done, value } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    controller.abort();
    const ids = [...seen.matchAll(/^id: (.+)$/gm)].map((match) => match[1] as string);
    expect(ids.length).toBeGreaterThan(0);
    // Until the owner has seen the dropped connection close, the stream still counts as active
    // and a reconnect gets 409 (the SDK transport's rule); a client retries, as the SDK client's
    // reconnection does, so this one does too for at most 3 s.
    const resume = () =>
      freshConnection(`${program.url}/mcp`, {
        headers: { ...headers, accept: "text/event-stream", "last-event-id": ids.at(-1) as string },
      });
    let resumed = await resume();
    for (const until = Date.now() + 3000; resumed.status === 409 && Date.now() < until; ) {
      await resumed.body?.cancel();
      await Bun.sleep(50);
      resumed = await resume();
    }
    expect(resumed.status).toBe(200);
    const rest = resumed.body?.getReader();
    let after = "";
    while (rest && !after.includes('"id":77')) {
      const { done, value } = await rest.read();
      if (done) break;
      after += new TextDecoder().decode(value);
    }
    await rest?.cancel();
    expect(after).toContain(`done in ${owner}`);
  }, 30_000);

  test("a session is bound to its identity in every process: bob gets 404 for alice's, wherever it lands", async () => {
    const alice = await connect([], "alice");
    const owner = text(await alice.callTool({ name: "pid", arguments: {} }));
    const session = (alice as unknown as { transport: { sessionId?: string } }).transport.sessionId ?? "";
    const base = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25",
    };
    // Each on a fresh connection, 6 times: most land on either process, so both the owner and
    // the relay (src/mcp/process-relay.ts) must refuse.
    for (const token of ["bob", null]) {
      const identity: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
      for (let i = 0; i < 6; i++) {
        const call = await freshConnection(`${program.url}/mcp`, {
          method: "POST",
          headers: { ...base, ...identity },
          body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "pid" } }),
        });
        const stream = await freshConnection(`${program.url}/mcp`, {
          headers: { ...base, ...identity, accept: "text/event-stream" },
        });
        const resume = await freshConnection(`${program.url}/mcp`, {
          headers: { ...base, ...identity, accept: "text/event-stream", "last-event-id": "0.1" },
        });
        const deleted = await freshConnection(`${program.url}/mcp`, {
          method: "DELETE",
          headers: { ...base, ...identity },
        });
        expect([call.status, stream.status, resume.status, deleted.status]).toEqual([404, 404, 404, 404]);
        for (const answer of [call, stream, resume, deleted]) await answer.body?.cancel();
      }
    }
    // Alice's session survived all of it, in its own process.
    expect(text(await alice.callTool({ name: "pid", arguments: {} }))).toBe(owner);
  }, 60_000);

  test("a route tool relayed to the session's process sees the MCP caller's address", async () => {
    const client = await connect();
    const owner = text(await client.callTool({ name: "pid", arguments: {} }));
    for (let i = 0; i < 6; i++) {
      const result = (await client.callTool({ name: "client_address", arguments: {} })) as {
        structuredContent?: { address: string | null; pid: number };
      };
      expect(result.structuredContent).toEqual({ address: "127.0.0.1", pid: Number(owner) });
    }
  }, 30_000);
});
