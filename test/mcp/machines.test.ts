/**
 * MCP sessions across machines: separate servers (each could be a machine)
 * share a real redis-server through `configureBroadcast`, and the official SDK
 * client talks to them through a "load balancer" without sticky routing: a
 * fetch that sends each request to the next server in turn, on a fresh
 * connection. Everything of a session must still reach the process that
 * holds it: calls, the client's answer to a sampling request, the GET
 * notification stream, a resumption with `Last-Event-ID`, `DELETE`. An owner
 * that dies gives its sessions' clients 404 (they start over); Redis going
 * away gives 503 for another machine's session and leaves the session alive.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { RedisClient, type Subprocess } from "bun";
import { launchProgram, type Program, waitFor } from "../faults/spawn.ts";
import { balancingFetch, roundRobinFetch } from "../helpers/balancer.ts";
import { startRedis } from "../helpers/redis.ts";
import { describeWithProgram } from "../helpers/system-program.ts";

const APP = join(import.meta.dir, "../../examples/mcp-cluster.ts");
const PROTOCOL = "2025-11-25";

/** Opens a session on `url` by hand (no GET stream); its id. */
async function initializeOn(url: string, extra: Record<string, string> = {}): Promise<string> {
  const answer = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...extra },
    keepalive: false,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "hand", version: "1" } },
    }),
  });
  expect(answer.status).toBe(200);
  await answer.text();
  const session = answer.headers.get("mcp-session-id") ?? "";
  const initialized = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: { ...headersFor(session), ...extra },
    keepalive: false,
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  expect(initialized.status).toBe(202);
  return session;
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

function sessionOf(client: Client): string {
  return (client as unknown as { transport: { sessionId?: string } }).transport.sessionId ?? "";
}

/** The headers of a hand-made request for `session`. */
function headersFor(session: string, accept = "application/json, text/event-stream") {
  return {
    "content-type": "application/json",
    accept,
    "mcp-session-id": session,
    "mcp-protocol-version": PROTOCOL,
    connection: "close",
  };
}

function call(url: string, session: string, id: number, name: string, args: Record<string, unknown> = {}) {
  return fetch(`${url}/mcp`, {
    method: "POST",
    headers: headersFor(session),
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }),
    keepalive: false,
  });
}

/** Reads an SSE or JSON body until `until` matches what was read (or the body ends). */
async function readUntil(body: ReadableStream<Uint8Array> | null, until: (seen: string) => boolean) {
  const reader = (body as ReadableStream<Uint8Array>).getReader();
  let seen = "";
  const decoder = new TextDecoder();
  while (!until(seen)) {
    const { done, value } = await reader.read();
    if (done) return { seen, reader, ended: true };
    seen += decoder.decode(value, { stream: true });
  }
  return { seen, reader, ended: false };
}

describeWithProgram("redis-server", "apt-get install -y redis-server", "MCP sessions across machines", () => {
  let redis: Subprocess;
  let redisUrl = "";
  const programs: Program[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    const started = await startRedis();
    redis = started.process;
    redisUrl = started.url;
    const env = { REDIS_URL: redisUrl };
    programs.push(await launchProgram(APP, [], { env }), await launchProgram(APP, [], { env }));
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    for (const program of programs) await program.stop().catch(() => undefined);
    redis?.kill();
  });

  async function connect(
    servers: Program[] | ReturnType<typeof balancingFetch>,
    options: { updated?: string[]; seen?: Map<string, number> } = {},
  ) {
    const client = new Client({ name: "m", version: "1" }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: "assistant",
      content: { type: "text", text: "sampled" },
      model: "m",
    }));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      options.updated?.push(n.params.uri);
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://balancer.invalid/mcp"), {
        fetch: (Array.isArray(servers) ? roundRobinFetch(servers, options.seen) : servers) as typeof fetch,
      }),
    );
    clients.push(client);
    return client;
  }

  test("every call of a session runs in the process that owns it, whichever machine it reaches", async () => {
    const [a, b] = programs as [Program, Program];
    const seen = new Map<string, number>();
    const client = await connect([a, b], { seen });
    const pids = new Set<string>();
    for (let i = 0; i < 10; i++) pids.add(text(await client.callTool({ name: "pid", arguments: {} })));
    expect(pids.size).toBe(1);
    // The balancer really alternated: both machines answered requests of this one session.
    expect(seen.get(a.url)).toBeGreaterThanOrEqual(5);
    expect(seen.get(b.url)).toBeGreaterThanOrEqual(5);
    // And the two machines are two processes.
    const direct = await Promise.all(
      [a, b].map(async (server) => (await (await fetch(`${server.url}/pid`)).json()) as { pid: number }),
    );
    expect(direct[0]?.pid).not.toBe(direct[1]?.pid);
    expect([String(direct[0]?.pid), String(direct[1]?.pid)]).toContain([...pids][0] as string);
  }, 30_000);

  test("a sampling round trip whose answer reaches the other machine", async () => {
    const client = await connect(programs);
    const owner = text(await client.callTool({ name: "pid", arguments: {} }));
    for (let i = 0; i < 4; i++) {
      const result = await client.callTool({ name: "ask", arguments: { question: "q" } });
      expect(text(result)).toBe(`sampled (asked by ${owner})`);
    }
  }, 30_000);

  test("the GET notification stream through the other machine carries resource updates", async () => {
    const [a, b] = programs as [Program, Program];
    const updated: string[] = [];
    const seen = new Map<string, number>();
    // Every POST (initialize included: the session lives on A) to A, the GET stream through B.
    const subscriber = await connect(
      balancingFetch((method) => (method === "GET" ? b : a), seen),
      { updated },
    );
    await subscriber.subscribeResource({ uri: "counter://value" });
    await waitFor(() => (seen.get(b.url) ?? 0) >= 1 || undefined, 5000, "the SDK client's GET stream");
    await Bun.sleep(200);
    // A change made by another session's call, on either machine, reaches it through the owner.
    const caller = await connect(programs);
    await caller.callTool({ name: "increment", arguments: {} });
    await caller.callTool({ name: "increment", arguments: {} });
    await waitFor(() => updated.length >= 2, 10_000, "2 resource updates");
    expect(updated).toEqual(["counter://value", "counter://value"]);
  }, 30_000);

  test("a stream dropped mid-call resumes through the other machine", async () => {
    const [a, b] = programs as [Program, Program];
    const client = await connect([a]);
    const owner = text(await client.callTool({ name: "pid", arguments: {} }));
    const session = sessionOf(client);
    const controller = new AbortController();
    // The call goes to the machine that does not hold the session; its SSE answer is relayed.
    const started = await fetch(`${b.url}/mcp`, {
      method: "POST",
      headers: headersFor(session),
      signal: controller.signal,
      keepalive: false,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 77,
        method: "tools/call",
        params: { name: "slow", arguments: { ms: 600 }, _meta: { progressToken: 1 } },
      }),
    });
    expect(started.status).toBe(200);
    expect(started.headers.get("content-type")).toContain("text/event-stream");
    const { seen } = await readUntil(started.body, (s) => s.includes("progress"));
    controller.abort();
    const ids = [...seen.matchAll(/^id: (.+)$/gm)].map((match) => match[1] as string);
    expect(ids.length).toBeGreaterThan(0);
    // Resumed through the other machine again; until the owner has seen the dropped stream end it
    // answers 409 (the SDK transport's rule), so a client retries, as the SDK client does.
    const resume = () =>
      fetch(`${b.url}/mcp`, {
        headers: { ...headersFor(session, "text/event-stream"), "last-event-id": ids.at(-1) as string },
        keepalive: false,
      });
    let resumed = await resume();
    for (const until = Date.now() + 5000; resumed.status === 409 && Date.now() < until; ) {
      await resumed.body?.cancel();
      await Bun.sleep(100);
      resumed = await resume();
    }
    expect(resumed.status).toBe(200);
    const rest = await readUntil(resumed.body, (s) => s.includes('"id":77'));
    await rest.reader.cancel();
    expect(rest.seen).toContain(`done in ${owner}`);
  }, 30_000);

  test("a session is bound to its identity across machines: bob's calls, stream, resumption and DELETE are 404", async () => {
    const [a, b] = programs as [Program, Program];
    const alice = { authorization: "Bearer alice" };
    const session = await initializeOn(a.url, alice);
    // An event id of the session's log, from a call of alice's with progress (an SSE answer).
    const started = await fetch(`${a.url}/mcp`, {
      method: "POST",
      headers: { ...headersFor(session), ...alice },
      keepalive: false,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 5,
        method: "tools/call",
        params: { name: "slow", arguments: { ms: 1 }, _meta: { progressToken: 1 } },
      }),
    });
    const { seen, reader } = await readUntil(started.body, (s) => s.includes('"id":5'));
    await reader.cancel().catch(() => undefined);
    const eventId = /^id: (.+)$/m.exec(seen)?.[1] ?? "";
    expect(eventId).not.toBe("");
    for (const identity of [{ authorization: "Bearer bob" }, {}] as Record<string, string>[]) {
      // Through B (relayed to A, which refuses) and at A itself.
      for (const server of [b, a]) {
        const called = await fetch(`${server.url}/mcp`, {
          method: "POST",
          headers: { ...headersFor(session), ...identity },
          keepalive: false,
          body: JSON.stringify({ jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "pid" } }),
        });
        const stream = await fetch(`${server.url}/mcp`, {
          headers: { ...headersFor(session, "text/event-stream"), ...identity },
          keepalive: false,
        });
        const resumed = await fetch(`${server.url}/mcp`, {
          headers: { ...headersFor(session, "text/event-stream"), ...identity, "last-event-id": eventId },
          keepalive: false,
        });
        const deleted = await fetch(`${server.url}/mcp`, {
          method: "DELETE",
          headers: { ...headersFor(session), ...identity },
          keepalive: false,
        });
        expect([called.status, stream.status, resumed.status, deleted.status]).toEqual([404, 404, 404, 404]);
        for (const answer of [called, stream, resumed, deleted]) await answer.body?.cancel();
      }
    }
    // Still alice's, through either machine; a route tool relayed from B sees alice's address.
    const direct = (await (await fetch(`${a.url}/pid`)).json()) as { pid: number };
    const viaB = await fetch(`${b.url}/mcp`, {
      method: "POST",
      headers: { ...headersFor(session, "application/json"), ...alice },
      keepalive: false,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "client_address" },
      }),
    });
    expect(viaB.status).toBe(200);
    const { result } = (await viaB.json()) as { result: { structuredContent: unknown } };
    expect(result.structuredContent).toEqual({ address: "127.0.0.1", pid: direct.pid });
    const deleted = await fetch(`${b.url}/mcp`, {
      method: "DELETE",
      headers: { ...headersFor(session), ...alice },
      keepalive: false,
    });
    expect(deleted.status).toBe(200);
  }, 30_000);

  test("200 relayed calls, 16 at a time, JSON and SSE answers: each gets its own", async () => {
    const [a, b] = programs as [Program, Program];
    const session = await initializeOn(a.url);
    // Redis may hand over an answer's head and its first chunks in one read: none may be lost.
    let next = 0;
    const answers: { i: number; sse: boolean; status: number; type: string | null; body: string }[] = [];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = next++; i < 200; i = next++) {
          // Half ask for SSE (progress first, then the result), half for JSON only.
          const sse = i % 2 === 0;
          const answer = await fetch(`${b.url}/mcp`, {
            method: "POST",
            headers: headersFor(session, sse ? "application/json, text/event-stream" : "application/json"),
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: 1000 + i,
              method: "tools/call",
              params: { name: "slow", arguments: { ms: 1 }, _meta: sse ? { progressToken: i } : {} },
            }),
          });
          const type = answer.headers.get("content-type");
          answers.push({ i, sse, status: answer.status, type, body: await answer.text() });
        }
      }),
    );
    expect(answers.length).toBe(200);
    for (const { i, sse, status, type, body } of answers) {
      expect(status).toBe(200);
      expect(type).toContain(sse ? "text/event-stream" : "application/json");
      expect(body).toContain(`"id":${1000 + i}`);
      expect(body).toContain("done in");
      if (sse) expect(body).toContain(`"progressToken":${i}`);
    }
  }, 30_000);

  test("a JSON answer, bad input and DELETE through the other machine", async () => {
    const [a, b] = programs as [Program, Program];
    const client = await connect([a]);
    const session = sessionOf(client);
    expect(session).toMatch(/^r[0-9a-f]{16}\./);
    // A JSON-only client gets the owner's JSON answer through the relay, headers and all.
    const json = await fetch(`${b.url}/mcp`, {
      method: "POST",
      headers: headersFor(session, "application/json"),
      keepalive: false,
      body: JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/list" }),
    });
    expect(json.status).toBe(200);
    expect(json.headers.get("content-type")).toContain("application/json");
    const listed = (await json.json()) as { id: number; result: { tools: { name: string }[] } };
    expect(listed.id).toBe(5);
    expect(listed.result.tools.map((tool) => tool.name)).toContain("ask");
    // Unknown tool: the owner's answer (an isError result), not a relay failure.
    const unknown = await call(b.url, session, 6, "no-such-tool");
    expect(unknown.status).toBe(200);
    expect(await unknown.text()).toContain("no-such-tool");
    // Ending the session through the other machine ends it on its owner.
    const ended = await fetch(`${b.url}/mcp`, {
      method: "DELETE",
      headers: headersFor(session),
      keepalive: false,
    });
    expect(ended.status).toBe(200);
    const after = await call(a.url, session, 7, "pid");
    expect(after.status).toBe(404);
    const elsewhere = await call(b.url, session, 8, "pid");
    expect(elsewhere.status).toBe(404);
  }, 30_000);

  test("an id that names no live machine gets 404 at once", async () => {
    const [a] = programs as [Program];
    const started = Date.now();
    const answer = await call(a.url, `r0123456789abcdef.${crypto.randomUUID()}`, 1, "pid");
    expect(answer.status).toBe(404);
    expect(Date.now() - started).toBeLessThan(2000);
    // A client cannot turn the relay off for someone else's session: the header only makes its own request local.
    const client = await connect([a]);
    const hidden = await fetch(`${programs[1]?.url}/mcp`, {
      method: "POST",
      headers: { ...headersFor(sessionOf(client)), "x-webfw-mcp-relayed": "0123456789abcdef" },
      keepalive: false,
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(hidden.status).toBe(404);
    expect((await call(a.url, sessionOf(client), 3, "pid")).status).toBe(200);
  }, 30_000);

  test("a client that leaves a relayed GET stream frees the owner's stream", async () => {
    const [a, b] = programs as [Program, Program];
    const session = await initializeOn(a.url);
    const open = (url: string, signal?: AbortSignal) =>
      fetch(`${url}/mcp`, { headers: headersFor(session, "text/event-stream"), keepalive: false, signal });
    const leaving = new AbortController();
    const relayed = await open(b.url, leaving.signal);
    expect(relayed.status).toBe(200);
    // One GET stream per session (the SDK transport's rule): while it is open, another gets 409.
    const second = await open(a.url);
    expect(second.status).toBe(409);
    await second.body?.cancel();
    leaving.abort();
    // The cancel reaches the owner through Redis: its stream ends and a new one is accepted.
    let again = await open(a.url);
    for (const until = Date.now() + 3000; again.status === 409 && Date.now() < until; ) {
      await again.body?.cancel();
      await Bun.sleep(50);
      again = await open(a.url);
    }
    expect(again.status).toBe(200);
    await again.body?.cancel();
  }, 30_000);

  test("garbage on a node's channel is ignored: the node keeps serving and relaying", async () => {
    const [a, b] = programs as [Program, Program];
    const session = await initializeOn(a.url);
    const node = /^r([0-9a-f]{16})\./.exec(session)?.[1] as string;
    const publisher = new RedisClient(redisUrl);
    try {
      const channel = `webfw:broadcast:mcp:${node}`;
      const garbage = [
        "not json",
        "null",
        "[]",
        JSON.stringify({ t: "req" }),
        JSON.stringify({ t: "req", id: "x", from: "nothex", method: "POST", path: "/mcp", headers: [] }),
        JSON.stringify({
          t: "req",
          id: "y",
          from: "0123456789abcdef",
          method: "POST",
          path: "mcp",
          headers: [],
        }),
        JSON.stringify({
          t: "req",
          id: "z",
          from: "0123456789abcdef",
          method: "GET",
          path: "/mcp",
          headers: [["bad header", "x"]],
        }),
        JSON.stringify({ t: "head", id: "unknown", status: 200, headers: [] }),
        JSON.stringify({ t: "data", id: "unknown", bytes: 42 }),
        JSON.stringify({ t: "cancel", id: 7 }),
      ];
      for (const message of garbage) expect(await publisher.publish(channel, message)).toBe(1);
    } finally {
      publisher.close();
    }
    await Bun.sleep(100);
    const relayed = await call(b.url, session, 1, "pid");
    expect(relayed.status).toBe(200);
    expect(await relayed.text()).toContain('"id":1');
    expect((await fetch(`${a.url}/health`)).status).toBe(200);
  }, 30_000);

  test("an owner that dies: its relayed stream ends, and its session answers 404 elsewhere", async () => {
    const [a] = programs as [Program];
    const owner = await launchProgram(APP, [], { env: { REDIS_URL: redisUrl } });
    try {
      const session = await initializeOn(owner.url);
      // A notification stream held open through machine A for a session of `owner`.
      const stream = await fetch(`${a.url}/mcp`, {
        headers: headersFor(session, "text/event-stream"),
        keepalive: false,
      });
      expect(stream.status).toBe(200);
      const reading = readUntil(stream.body, () => false).catch((error: unknown) => ({
        seen: "",
        ended: true,
        error,
      }));
      await owner.proc.kill("SIGKILL");
      await owner.proc.exited;
      const before = Date.now();
      const result = await Promise.race([reading, Bun.sleep(15_000).then(() => "still open" as const)]);
      expect(result).not.toBe("still open");
      expect(Date.now() - before).toBeLessThan(15_000);
      const gone = await call(a.url, session, 9, "pid");
      expect(gone.status).toBe(404);
    } finally {
      await owner.stop().catch(() => undefined);
    }
  }, 40_000);

  test("Redis going away: 503 for another machine's session, the session lives on, then relays again", async () => {
    const [a, b] = programs as [Program, Program];
    const client = await connect([a]);
    const session = sessionOf(client);
    expect((await call(b.url, session, 1, "pid")).status).toBe(200);
    redis.kill();
    await redis.exited;
    await Bun.sleep(300);
    const away = await call(b.url, session, 2, "pid");
    expect(away.status).toBe(503);
    expect(away.headers.get("retry-after")).toBe("1");
    expect(((await away.json()) as { error: { message: string } }).error.message).toContain(
      "cannot be reached",
    );
    // The owner still answers its session directly.
    const local = await call(a.url, session, 3, "pid");
    expect(local.status).toBe(200);
    // Redis back on the same port: both machines reconnect and the relay works again.
    redis = (await startRedis(Number(new URL(redisUrl).port))).process;
    await waitFor(
      async () => ((await call(b.url, session, 4, "pid")).status === 200 ? true : undefined),
      20_000,
      "the relay after Redis came back",
    );
  }, 60_000);
});
