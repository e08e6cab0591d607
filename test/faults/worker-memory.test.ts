/**
 * `--workers 2`: a synchronous handler that allocates until the heap cannot
 * grow, and one that kills its Worker. Bun ignores Worker `resourceLimits`
 * (checked on Bun 1.4.5: a Worker with maxOldGenerationSizeMb 64 grew past
 * 6 GB), so the program runs under `ulimit -v`: the allocation fails inside
 * the Worker with `RangeError: Out of memory`, that request gets 500, and the
 * main thread and the pool keep serving.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Results } from "../security/helpers.ts";
import { rawGet } from "../security/raw-client.ts";
import { launch, type Program } from "./spawn.ts";

const results = new Results("faults-workers");
let program: Program;

beforeAll(async () => {
  program = await launch(["--workers", "2"], { memoryLimitKb: 1_500_000 });
}, 30_000);
afterAll(async () => {
  await program?.stop();
  results.write();
});

describe("--workers 2 under a memory limit", () => {
  test("sync handlers do run on the pool (so the faults below happen in a Worker)", async () => {
    const reply = await rawGet(program.port, "/where");
    expect(JSON.parse(reply.body)).toEqual({ main: false });
  });

  test("a handler that allocates until memory runs out: 500 for it, the rest keeps working", async () => {
    const hog = fetch(`${program.url}/hog`);
    // While the Worker is eating memory, the main thread answers.
    const during = await rawGet(program.port, "/health");
    const response = await hog;
    expect(response.status).toBe(500);
    expect(await response.text()).toBe("Internal Server Error");
    expect(during.status).toBe(200);
    for (let i = 0; i < 4; i++)
      expect(JSON.parse((await rawGet(program.port, "/where")).body)).toEqual({ main: false });
    expect(program.stderr()).toContain("RangeError: Out of memory");
    // And again: the Worker recovered (its garbage was collected), it did not stay broken.
    expect((await fetch(`${program.url}/hog`)).status).toBe(500);
    expect((await rawGet(program.port, "/where")).status).toBe(200);
    results.add({
      group: "workers",
      input: "sync handler allocating until out of memory (--workers 2, ulimit -v 1.5 GB)",
      outcome: "500 for it; pool and main thread keep serving",
      survived: true,
    });
  }, 60_000);

  test("a Worker that exits: its request gets 500, the pool replaces it", async () => {
    const response = await fetch(`${program.url}/die`);
    expect(response.status).toBe(500);
    // Right away and all at once: some land on the replacement Worker while it is still loading the app.
    const replies = await Promise.all(Array.from({ length: 10 }, () => rawGet(program.port, "/where")));
    expect(replies.map((r) => r.status)).toEqual(Array(10).fill(200));
    results.add({
      group: "workers",
      input: "a Worker calls process.exit (--workers 2)",
      outcome: "500 for it; Worker replaced; next 10 requests 200",
      survived: true,
    });
  }, 30_000);

  test("the program is still the same process, alive", async () => {
    expect(program.proc.exitCode).toBeNull();
    expect((await rawGet(program.port, "/health")).body).toBe("ok");
  });
});
