/**
 * The yardstick for `/metrics`: Debian's real `prometheus` server, given a
 * generated config, scrapes the app (two processes behind one port) every
 * second; the test then asks Prometheus' HTTP API for the request-duration
 * histogram of a route called a known number of times.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collect, freePort, waitFor } from "../cli/helpers.ts";
import { launchProgram, type Program } from "../faults/spawn.ts";
import { describeWithProgram } from "../helpers/system-program.ts";

const APP = join(import.meta.dir, "fixtures/metrics-app.ts");
const CALLS = 23;

interface PromVector {
  status: string;
  data: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
}

describeWithProgram("prometheus", "apt-get install prometheus", "a real Prometheus scrapes /metrics", () => {
  let program: Program;
  let prometheus: ReturnType<typeof Bun.spawn> | undefined;
  let promUrl = "";
  let dir = "";
  let promLog: { text: () => string } = { text: () => "" };

  beforeAll(async () => {
    program = await launchProgram(APP, ["--metrics", "--processes", "2"], { listening: 2 });
    dir = mkdtempSync(join(tmpdir(), "webfw-prometheus-"));
    const config = join(dir, "prometheus.yml");
    writeFileSync(
      config,
      [
        "global:",
        "  scrape_interval: 1s",
        "  scrape_timeout: 900ms",
        "scrape_configs:",
        "  - job_name: webfw",
        "    metrics_path: /metrics",
        "    static_configs:",
        `      - targets: ["127.0.0.1:${program.port}"]`,
        "",
      ].join("\n"),
    );
    const port = freePort();
    promUrl = `http://127.0.0.1:${port}`;
    prometheus = Bun.spawn(
      [
        "prometheus",
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(dir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
        "--log.level=warn",
      ],
      { stdout: "pipe", stderr: "pipe" },
    );
    promLog = collect(prometheus.stderr as ReadableStream<Uint8Array>);
    await waitFor(
      () =>
        fetch(`${promUrl}/-/ready`)
          .then((r) => r.ok)
          .catch(() => false),
      30_000,
      "prometheus to be ready",
    );
  });

  afterAll(async () => {
    prometheus?.kill("SIGTERM");
    await prometheus?.exited;
    await program?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const query = async (expr: string): Promise<PromVector["data"]["result"]> => {
    const response = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await response.json()) as PromVector;
    expect(body.status).toBe("success");
    return body.data.result;
  };

  const scalar = async (expr: string): Promise<number | undefined> => {
    const [sample] = await query(expr);
    return sample ? Number(sample.value[1]) : undefined;
  };

  // A long timeout: the first scrapes take a few seconds to be stored.
  test("Prometheus stores the histogram count of a route called a known number of times", async () => {
    for (let i = 0; i < CALLS; i++) {
      const response = await fetch(`${program.url}/items/${i}`, {
        headers: { connection: "close" },
        keepalive: false,
      });
      expect(response.status).toBe(200);
    }
    const expr =
      'http_server_request_duration_seconds_count{job="webfw",route="/items/:id",method="GET",status="200"}';
    try {
      await waitFor(
        async () => (await scalar(expr)) === CALLS,
        30_000,
        `Prometheus to store ${CALLS} requests`,
      );
    } catch (error) {
      throw new Error(
        `${(error as Error).message}; last value ${await scalar(expr)}; prometheus log:\n${promLog.text()}`,
      );
    }
    // One target, scraped healthily, covering both processes.
    expect(await scalar('up{job="webfw"}')).toBe(1);
    expect(await scalar('webfw_metrics_processes{job="webfw"}')).toBe(2);
    // The buckets are there and cumulative: the +Inf bucket holds every request.
    expect(
      await scalar(
        'http_server_request_duration_seconds_bucket{job="webfw",route="/items/:id",status="200",le="+Inf"}',
      ),
    ).toBe(CALLS);
  }, 60_000);
});
