/**
 * The cost of `algorithm: "sliding"` against fixed windows, per counted request, without sockets
 * (docs/rate-limiting.md#cost): `bun bench/rate-limit-algorithms.ts`. The memory store's `hit` and
 * `hitSliding` over 1 key and over 10 000 keys (ns per call), and the Redis store's (µs per round
 * trip, one at a time, to a redis-server this script starts on a unix socket; skipped without one).
 * Each figure is the fastest of 11 rounds: the machine's noise only ever adds time.
 */
import { MemoryStore, RedisStore } from "../src/entries/rate-limit.ts";

const ROUNDS = 11;

async function best(name: string, unit: "ns" | "µs", n: number, call: (i: number) => unknown): Promise<void> {
  const round = async () => {
    const start = Bun.nanoseconds();
    for (let i = 0; i < n; i++) {
      const out = call(i);
      if (out instanceof Promise) await out;
    }
    return (Bun.nanoseconds() - start) / n;
  };
  await round(); // warm-up (JIT)
  let fastest = Number.POSITIVE_INFINITY;
  for (let r = 0; r < ROUNDS; r++) fastest = Math.min(fastest, await round());
  const value = unit === "ns" ? fastest : fastest / 1000;
  console.log(`${name.padEnd(40)} ${value.toFixed(unit === "ns" ? 0 : 1).padStart(7)} ${unit}`);
}

const LIMIT = 1_000_000_000;
const WINDOW = 3_600_000;
const keys = Array.from({ length: 10_000 }, (_, i) => `app:ip:10.0.${i >> 8}.${i & 255}`);
const memory = new MemoryStore();
await best("memory fixed, 1 key", "ns", 1_000_000, () => memory.hit("app:ip:127.0.0.1", WINDOW));
await best("memory sliding, 1 key", "ns", 1_000_000, () =>
  memory.hitSliding("app:ip:127.0.0.1", WINDOW, LIMIT),
);
await best("memory fixed, 10 000 keys", "ns", 1_000_000, (i) =>
  memory.hit(keys[i % 10_000] as string, WINDOW),
);
await best("memory sliding, 10 000 keys", "ns", 1_000_000, (i) =>
  memory.hitSliding(keys[i % 10_000] as string, WINDOW, LIMIT),
);
memory.close();

if (Bun.which("redis-server") === null) {
  console.log("redis-server is not installed: the Redis rows are skipped");
} else {
  const socket = `/tmp/webfw-rl-bench-${process.pid}.sock`;
  const redis = Bun.spawn(
    ["redis-server", "--port", "0", "--unixsocket", socket, "--save", "", "--appendonly", "no"],
    { stdout: "ignore", stderr: "ignore" },
  );
  try {
    for (let i = 0; i < 100 && !(await Bun.file(socket).exists()); i++) await Bun.sleep(50);
    const store = new RedisStore({ url: `redis+unix://${socket}` });
    await best("Redis fixed, 1 key", "µs", 5_000, () => store.hit("app:ip:127.0.0.1", WINDOW));
    await best("Redis sliding, 1 key", "µs", 5_000, () =>
      store.hitSliding("app:ip:127.0.0.1", WINDOW, LIMIT),
    );
    store.close();
  } finally {
    redis.kill();
    await redis.exited;
  }
}
