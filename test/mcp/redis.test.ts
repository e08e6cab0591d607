/**
 * MCP resource updates across machines: two separate servers (each could be a
 * machine, each with `--processes 2`) share a real redis-server through
 * `configureBroadcast`. A session subscribed on one server hears of a change
 * made by a call on the other. Sessions themselves stay with their server
 * (sticky routing across machines, docs/mcp.md).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Subprocess } from "bun";
import { launchProgram, type Program, waitFor } from "../faults/spawn.ts";
import { startRedis } from "../helpers/redis.ts";
import { describeWithProgram } from "../helpers/system-program.ts";

const APP = join(import.meta.dir, "fixtures/processes-app.ts");

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
});
