/**
 * The CPU-bound handler body of the `cpu` scenario: a fixed amount of integer
 * work (not a timed busy-wait), so that a server that runs it on two cores
 * really does twice the work. The runner calibrates the iteration count to
 * about 2 ms on this machine and passes it in `BENCH_CPU_ITERATIONS`.
 */
export function burn(iterations: number): number {
  let x = 0x9e3779b9 | 0;
  let sum = 0;
  for (let i = 0; i < iterations; i++) {
    // xorshift32: cheap, not optimisable away, identical in every runtime.
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    sum = (sum + (x & 0xff)) | 0;
  }
  return sum;
}

/** Iterations for the `cpu` scenario, from the environment (set by bench/run.ts). */
export function cpuIterations(): number {
  const value = Number(process.env.BENCH_CPU_ITERATIONS ?? "2000000");
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new RangeError("BENCH_CPU_ITERATIONS must be a positive integer");
  return value;
}

/** Iterations that take about `ms` milliseconds in this process (after warming the function up). */
export function calibrate(ms: number): number {
  burn(200_000);
  let iterations = 1_000_000;
  for (;;) {
    const start = performance.now();
    burn(iterations);
    const elapsed = performance.now() - start;
    if (elapsed >= 20) return Math.max(1, Math.round((iterations * ms) / elapsed));
    iterations *= 2;
  }
}
