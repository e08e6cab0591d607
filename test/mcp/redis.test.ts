/**
 * MCP resource updates across machines: two separate servers (each could be a
 * machine, each with `--processes 2`) share a real redis-server through
 * `configureBroadcast`. A session subscribed on one server hears of a change
 * made by a call on the other; and a session's requests, spread over all four
 * processes by a balancer without sticky routing, reach the session's own
 * (test/mcp/machines.test.ts has the rest of the relay's cases).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Subprocess } from "bun";
import { launchProgram, type Program, waitFor } from "../faults/spawn.ts";
import { roundRobinFetch } from "../helpers/balancer.ts";
import { startRedis } from "../helpers/redis.ts";
import { describeWithProgram } from "../helpers/system-program.ts";

const APP = join(import.meta.dir, "../../examples/mcp-cluster.ts");

describeWithProgram("redis-server", "apt-get install -y redis-server", "MCP through Redis", () => {
  let redis: Subprocess;
  const programs: Program[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    const started = await startRedis();
    redis = started.process;
    const env = { REDIS_URL: started.url };
    programs.push(
      await launchProgram(APP, ["--processes", "2"], { env, listening: 2 }),
      await launchProgram(APP, ["--processes", "2"], { env, listening: 2 }),
    );
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    for (const program of programs) await program.stop();
    redis?.kill();
  });

  async function connect(url: string, updated: string[] = []): Promise<Client> {
    const client = new Client({ name: "r", version: "1" });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updated.push(n.params.uri);
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    clients.push(client);
    return client;
  }

  test("a change made on one server reaches the subscribed sessions of both, once each", async () => {
    const [a, b] = programs as [Program, Program];
    const onA: string[] = [];
    const onB: string[] = [];
    await (await connect(a.url, onA)).subscribeResource({ uri: "counter://value" });
    await (await connect(b.url, onB)).subscribeResource({ uri: "counter://value" });
    const caller = await connect(b.url);
    await caller.callTool({ name: "increment", arguments: {} });
    await caller.callTool({ name: "increment", arguments: {} });
    await waitFor(() => onA.length >= 2 && onB.length >= 2, 10_000, "2 updates on both servers");
    await Bun.sleep(200);
    // Redis carries each update once: no process delivers it twice.
    expect(onA).toEqual(["counter://value", "counter://value"]);
    expect(onB).toEqual(["counter://value", "counter://value"]);
  }, 30_000);

  test("calls and sampling answers spread over four processes reach the session's own", async () => {
    const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";
    for (let round = 0; round < 3; round++) {
      const client = new Client({ name: "m4", version: "1" }, { capabilities: { sampling: {} } });
      client.setRequestHandler(CreateMessageRequestSchema, async () => ({
        role: "assistant",
        content: { type: "text", text: "sampled" },
        model: "m",
      }));
      await client.connect(
        new StreamableHTTPClientTransport(new URL("http://balancer.invalid/mcp"), {
          fetch: roundRobinFetch(programs) as typeof fetch,
        }),
      );
      clients.push(client);
      const owner = text(await client.callTool({ name: "pid", arguments: {} }));
      for (let i = 0; i < 4; i++)
        expect(text(await client.callTool({ name: "pid", arguments: {} }))).toBe(owner);
      const asked = await client.callTool({ name: "ask", arguments: { question: "q" } });
      expect(text(asked)).toBe(`sampled (asked by ${owner})`);
    }
  }, 60_000);
});
