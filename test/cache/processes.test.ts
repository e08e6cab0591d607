/**
 * `--processes 2` without Redis (docs/caching.md#invalidation): each process has its own memory
 * store, and an invalidation made in one reaches the other through the supervisor. Runs
 * examples/caching.ts as a real program; each request on its own connection, so the kernel
 * spreads them over both processes.
 */
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { launchProgram, type Program } from "../faults/spawn.ts";
import { type RawReply, rawGet, rawPost } from "../security/raw-client.ts";

const EXAMPLE = join(import.meta.dir, "../../examples/caching.ts");
const programs: Program[] = [];
afterAll(async () => {
  for (const program of programs) await program.stop();
});

/** GET on new connections until both processes answered (each reply with its process id). */
async function fromBoth(port: number, path: string): Promise<Map<number, RawReply[]>> {
  const byPid = new Map<number, RawReply[]>();
  for (let i = 0; i < 200 && (byPid.size < 2 || i < 20); i++) {
    const reply = await rawGet(port, path);
    expect(reply.status).toBe(200);
    const pid = (JSON.parse(reply.body) as { pid: number }).pid;
    byPid.set(pid, [...(byPid.get(pid) ?? []), reply]);
  }
  expect(byPid.size).toBe(2);
  return byPid;
}

test("an invalidation in one process drops the other process's entry too", async () => {
  const program = await launchProgram(EXAMPLE, ["--processes", "2"], {
    env: { REDIS_URL: "" },
    listening: 2,
  });
  programs.push(program);
  // Each process computes /products/1 once, then serves it from its own store.
  for (const replies of (await fromBoth(program.port, "/products/1")).values()) {
    expect(replies[0]?.headers["cache-status"]).toBe("webfw; fwd=uri-miss; stored");
    for (const reply of replies.slice(1)) expect(reply.headers["cache-status"]).toStartWith("webfw; hit");
  }
  const put = await rawPost(
    program.port,
    "/products/1",
    '{"name":"lamp"}',
    "Content-Type: application/json\r\n",
    "PUT",
  );
  expect(put.status).toBe(200);
  await Bun.sleep(200);
  // Both processes compute again: the first answer of each after the PUT is a miss.
  for (const replies of (await fromBoth(program.port, "/products/1")).values()) {
    expect(replies[0]?.headers["cache-status"]).toBe("webfw; fwd=uri-miss; stored");
  }
}, 60_000);
