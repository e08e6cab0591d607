/**
 * What a job costs: `bun bench/jobs.ts` (optionally `JOBS=2000`; `REDIS_URL=redis://…` for BullMQ,
 * else the in-memory queue). One app in this process, served on 127.0.0.1, one job that does
 * nothing. Measures: `app.enqueue` (awaited one after another: the time to store a job), then the
 * time until all JOBS enqueued at once have run (throughput with `concurrency: 8`). Each run
 * writes its INFO log line, as in production.
 */
import { Webfw } from "../src/index.ts";

const JOBS = Number(process.env.JOBS ?? "2000");
const redisUrl = process.env.REDIS_URL;

const app = new Webfw(import.meta.path);
if (redisUrl) app.configureBroadcast({ redisUrl });
let done = 0;
app.job(
  "noop",
  () => {
    done++;
  },
  { concurrency: 8 },
);
const server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });

const waitFor = async (count: number) => {
  while (done < count) await Bun.sleep(1);
};

let started = performance.now();
for (let i = 0; i < JOBS; i++) await app.enqueue("noop", { i });
const enqueueMs = (performance.now() - started) / JOBS;
await waitFor(JOBS);

done = 0;
started = performance.now();
await Promise.all(Array.from({ length: JOBS }, (_, i) => app.enqueue("noop", { i })));
await waitFor(JOBS);
const perSecond = JOBS / ((performance.now() - started) / 1000);

console.log(`queue: ${redisUrl ? "BullMQ (Redis)" : "in memory"}, ${JOBS} jobs`);
console.log(`enqueue, awaited one by one: ${(enqueueMs * 1000).toFixed(0)} µs per job`);
console.log(`enqueue all then run (concurrency 8): ${Math.round(perSecond)} jobs/s`);
await server.stop(true);
process.exit(0);
