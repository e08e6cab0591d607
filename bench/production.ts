/**
 * Production essentials (issue #17, docs/performance.md), in one run, against raw Bun.serve in the same run:
 *
 *   bun bench/production.ts [--repeat 5] [--duration 5] [--baseline DIR] [--upload-mib 1024]
 *
 * 1. HTTP/2 `GET /` over TLS with h2load: webfw `start({ tls, http2 })` vs `Bun.serve({ tls, http2 })`.
 * 2. A 64 KiB JSON answer per coding (wrk with Accept-Encoding): throughput and bytes on the wire,
 *    webfw `compression: true` vs raw Bun.serve (uncompressed) and Hono's `compress()` (gzip).
 * 3. A 1 GiB multipart upload saved to disk through `request.parts()` / `saveTo`: the server's RSS
 *    sampled every 20 ms; the client generates the body as a stream (nothing read from disk).
 * 4. Features off: `GET /` of webfw as it is vs DIR, the same tree with issue #17's hooks taken
 *    out (see docs/performance.md for how it is made), same run, alternating.
 *
 * Servers run pinned to core 0 (taskset), load generators to core 1; variants alternate in every
 * repeat; medians with min–max spread. Writes bench/results/production-latest.md.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { makeCert } from "../test/helpers/tls.ts";
import { type RunningServer, startServer } from "./lib/proc.ts";
import { describeMachine, rssKb } from "./lib/system.ts";

const { values } = parseArgs({
  options: {
    repeat: { type: "string", default: "5" },
    duration: { type: "string", default: "5" },
    baseline: { type: "string" },
    "upload-mib": { type: "string", default: "1024" },
    only: { type: "string" },
  },
});
const REPEAT = Number(values.repeat);
const DURATION = Number(values.duration);
const UPLOAD_MIB = Number(values["upload-mib"]);
const ONLY = values.only?.split(",");
const SERVER_CPU = "0";
const CLIENT_CPU = "1";
const SERVER = join(import.meta.dir, "servers/production.ts");
const HELLO_SERVER = (root: string) => join(root, "bench/servers/webfw.ts");
const ROOT = join(import.meta.dir, "..");

interface Stats {
  median: number;
  min: number;
  max: number;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median =
    sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { median, min: sorted[0] as number, max: sorted.at(-1) as number };
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const spread = (s: Stats) => `${fmt(s.min)}–${fmt(s.max)}`;

async function run(command: string[], limitSeconds: number): Promise<string> {
  const proc = Bun.spawn(command, { stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), limitSeconds * 1000);
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  clearTimeout(timer);
  if ((await proc.exited) !== 0) throw new Error(`${command.join(" ")} failed: ${err || out}`);
  return out;
}

async function h2load(url: string): Promise<number> {
  const out = await run(
    [
      "taskset",
      "-c",
      CLIENT_CPU,
      "h2load",
      "-D",
      String(DURATION),
      "--warm-up-time=1",
      "-c",
      "16",
      "-m",
      "16",
      "-t",
      "1",
      url,
    ],
    DURATION + 30,
  );
  const rps = Number(/finished in [\d.]+\w*, ([\d.]+) req\/s/.exec(out)?.[1] ?? Number.NaN);
  const failed = Number(/(\d+) failed/.exec(out)?.[1] ?? 0);
  const errored = Number(/(\d+) errored/.exec(out)?.[1] ?? 0);
  if (failed + errored > 0 || !Number.isFinite(rps))
    throw new Error(`h2load: ${failed} failed, ${errored} errored\n${out}`);
  return rps;
}

async function wrk(url: string, headers: string[] = []): Promise<number> {
  const args = ["taskset", "-c", CLIENT_CPU, "wrk", "-t1", "-c64", `-d${DURATION}s`, "--timeout", "10s"];
  for (const header of headers) args.push("-H", header);
  const out = await run([...args, url], DURATION + 30);
  if (/Non-2xx/.test(out)) throw new Error(`wrk: non-2xx answers\n${out}`);
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN);
}

async function withServer<T>(
  file: string,
  env: Record<string, string>,
  body: (server: RunningServer) => Promise<T>,
): Promise<T> {
  const server = await startServer(file, SERVER_CPU, env);
  try {
    return await body(server);
  } finally {
    await server.stop();
  }
}

const sections: string[] = [];
const want = (name: string) => !ONLY || ONLY.includes(name);

// 1. HTTP/2
if (want("h2")) {
  const cert = await makeCert();
  const env = { BENCH_TLS_CERT: cert.cert, BENCH_TLS_KEY: cert.key };
  const samples: Record<string, number[]> = { "raw-h2": [], "webfw-h2": [] };
  for (let r = 0; r < REPEAT; r++) {
    const order = r % 2 === 0 ? ["raw-h2", "webfw-h2"] : ["webfw-h2", "raw-h2"];
    for (const variant of order) {
      const rps = await withServer(SERVER, { ...env, BENCH_PROD: variant }, (server) =>
        h2load(`https://127.0.0.1:${server.port}/`),
      );
      samples[variant]?.push(rps);
      console.log(`h2 ${variant} #${r + 1}: ${fmt(rps)} req/s`);
    }
  }
  cert.remove();
  const raw = stats(samples["raw-h2"] as number[]);
  const webfw = stats(samples["webfw-h2"] as number[]);
  const ratios = stats(
    (samples["webfw-h2"] as number[]).map((v, i) => v / (samples["raw-h2"] as number[])[i]!),
  );
  sections.push(
    [
      "## HTTP/2 over TLS, `GET /` (h2load -c 16 -m 16, target ≥ 0.95 × raw)",
      "",
      "| server | req/s (median) | spread | × raw |",
      "|---|--:|--:|--:|",
      `| raw \`Bun.serve({ tls, http2: true })\` | ${fmt(raw.median)} | ${spread(raw)} | 1.00 |`,
      `| webfw \`start({ tls, http2: true })\` | ${fmt(webfw.median)} | ${spread(webfw)} | ${(webfw.median / raw.median).toFixed(2)} (per-repeat ratios ${ratios.min.toFixed(2)}–${ratios.max.toFixed(2)}) |`,
    ].join("\n"),
  );
}

// 2. Compression
if (want("compression")) {
  const cases = [
    { id: "raw", label: "raw Bun.serve, uncompressed", variant: "raw-json", encoding: "identity" },
    { id: "webfw-off", label: "webfw, compression off", variant: "webfw-json", encoding: "identity" },
    { id: "webfw-zstd", label: "webfw zstd (level 3)", variant: "webfw-compress", encoding: "zstd" },
    { id: "webfw-br", label: "webfw br (quality 4)", variant: "webfw-compress", encoding: "br" },
    { id: "webfw-gzip", label: "webfw gzip (level 6)", variant: "webfw-compress", encoding: "gzip" },
    { id: "hono-gzip", label: "Hono `compress()` gzip", variant: "hono-compress", encoding: "gzip" },
  ];
  const samples = new Map<string, number[]>(cases.map((c) => [c.id, []]));
  const bytes = new Map<string, number>();
  for (let r = 0; r < REPEAT; r++) {
    const order = r % 2 === 0 ? cases : [...cases].reverse();
    for (const c of order) {
      const rps = await withServer(SERVER, { BENCH_PROD: c.variant }, async (server) => {
        const response = await fetch(`${server.url}/report`, {
          headers: { "accept-encoding": c.encoding },
          decompress: false,
        } as RequestInit);
        const got = response.headers.get("content-encoding") ?? "identity";
        if (got !== c.encoding) throw new Error(`${c.id}: asked ${c.encoding}, got ${got}`);
        bytes.set(c.id, (await response.arrayBuffer()).byteLength);
        return wrk(`${server.url}/report`, [`Accept-Encoding: ${c.encoding}`]);
      });
      samples.get(c.id)?.push(rps);
      console.log(`compression ${c.id} #${r + 1}: ${fmt(rps)} req/s, ${bytes.get(c.id)} bytes`);
    }
  }
  const raw = stats(samples.get("raw") as number[]);
  const honoGzip = stats(samples.get("hono-gzip") as number[]);
  const rows = cases.map((c) => {
    const s = stats(samples.get(c.id) as number[]);
    const versusHono =
      c.id === "webfw-gzip" ? ` (${(s.median / honoGzip.median).toFixed(2)} × Hono gzip)` : "";
    return `| ${c.label} | ${fmt(s.median)} | ${spread(s)} | ${(s.median / raw.median).toFixed(2)}${versusHono} | ${fmt(bytes.get(c.id) ?? 0)} |`;
  });
  sections.push(
    [
      "## 64 KiB JSON per coding (wrk -c 64, `Accept-Encoding` set per row)",
      "",
      "| server | req/s (median) | spread | × raw | bytes on the wire |",
      "|---|--:|--:|--:|--:|",
      ...rows,
    ].join("\n"),
  );
}

// 3. Upload
if (want("upload")) {
  const dir = mkdtempSync(join(tmpdir(), "webfw-bench-upload-"));
  const growth: number[] = [];
  const before: number[] = [];
  const speed: number[] = [];
  try {
    for (let r = 0; r < REPEAT; r++) {
      const result = await withServer(
        SERVER,
        { BENCH_PROD: "webfw-upload", BENCH_UPLOAD_DIR: dir },
        async (server) => {
          // Warm up (code paths, buffers), then measure from a settled RSS.
          await upload(server.url, 16);
          await Bun.sleep(500);
          const start = rssKb(server.pid) ?? 0;
          let peak = start;
          const sampler = setInterval(() => {
            peak = Math.max(peak, rssKb(server.pid) ?? 0);
          }, 20);
          const started = performance.now();
          await upload(server.url, UPLOAD_MIB);
          const seconds = (performance.now() - started) / 1000;
          clearInterval(sampler);
          peak = Math.max(peak, rssKb(server.pid) ?? 0);
          return { start, peak, seconds };
        },
      );
      growth.push((result.peak - result.start) / 1024);
      before.push(result.start / 1024);
      speed.push(UPLOAD_MIB / result.seconds);
      console.log(
        `upload #${r + 1}: RSS ${(result.start / 1024).toFixed(1)} -> ${(result.peak / 1024).toFixed(1)} MiB`,
      );
    }
    const g = stats(growth);
    const b = stats(before);
    const v = stats(speed);
    sections.push(
      [
        `## ${UPLOAD_MIB} MiB multipart upload saved to disk (\`request.parts()\` + \`saveTo\`, target: RSS growth < 64 MiB)`,
        "",
        "| server RSS before (median) | RSS growth during the upload (median) | growth, worst repeat | throughput (median) |",
        "|--:|--:|--:|--:|",
        `| ${b.median.toFixed(1)} MiB | ${g.median.toFixed(1)} MiB | ${g.max.toFixed(1)} MiB | ${v.median.toFixed(0)} MiB/s |`,
      ].join("\n"),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Streams a multipart body of `mib` MiB (generated, never written to disk first); returns the size the server saved. */
async function upload(base: string, mib: number): Promise<number> {
  const boundary = "----webfwBench7MA4YWxkTrZu0gW";
  const encoder = new TextEncoder();
  const chunk = new Uint8Array(1024 * 1024);
  for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31) & 0xff;
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(
        encoder.encode(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`,
        ),
      );
    },
    pull(controller) {
      if (sent === mib) {
        controller.enqueue(encoder.encode(`\r\n--${boundary}--\r\n`));
        controller.close();
        return;
      }
      sent++;
      controller.enqueue(chunk);
    },
  });
  const response = await fetch(`${base}/upload`, {
    method: "POST",
    body,
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
  });
  const answer = (await response.json()) as { total: number };
  if (response.status !== 200 || answer.total !== mib * 1024 * 1024) {
    throw new Error(`upload: ${response.status} ${JSON.stringify(answer)}`);
  }
  return answer.total;
}

// 4. Features off
if (want("off")) {
  if (values.baseline === undefined) {
    sections.push(
      "## Features off\n\nSkipped: give `--baseline DIR` (docs/performance.md says how to make it).",
    );
  } else {
    const variants = [
      {
        id: "current",
        label: "webfw as it is (TLS, HTTP/2, compression, uploads off)",
        file: HELLO_SERVER(ROOT),
      },
      { id: "baseline", label: "webfw without issue #17's hooks", file: HELLO_SERVER(values.baseline) },
    ];
    const samples = new Map<string, number[]>(variants.map((v) => [v.id, []]));
    for (let r = 0; r < REPEAT; r++) {
      const order = r % 2 === 0 ? variants : [...variants].reverse();
      for (const v of order) {
        const rps = await withServer(v.file, { BENCH_SCENARIO: "hello", BENCH_ENGINE: "bun" }, (server) =>
          wrk(`${server.url}/`),
        );
        samples.get(v.id)?.push(rps);
        console.log(`off ${v.id} #${r + 1}: ${fmt(rps)} req/s`);
      }
    }
    const base = stats(samples.get("baseline") as number[]);
    const current = stats(samples.get("current") as number[]);
    const ratios = stats(
      (samples.get("current") as number[]).map((v, i) => v / (samples.get("baseline") as number[])[i]!),
    );
    sections.push(
      [
        "## Features off: `GET /` (wrk -c 64, target ≥ 0.99 × without them)",
        "",
        "| server | req/s (median) | spread | × without |",
        "|---|--:|--:|--:|",
        `| ${variants[1]?.label} | ${fmt(base.median)} | ${spread(base)} | 1.00 |`,
        `| ${variants[0]?.label} | ${fmt(current.median)} | ${spread(current)} | ${(current.median / base.median).toFixed(3)} (per-repeat ratios ${ratios.min.toFixed(2)}–${ratios.max.toFixed(2)}) |`,
      ].join("\n"),
    );
  }
}

const machine = describeMachine();
const report = [
  `# Production essentials bench (${new Date().toISOString()})`,
  "",
  `${machine.cpuModel}, ${machine.nproc} CPUs, Linux ${machine.kernel}, Bun ${machine.bun}; servers on core ${SERVER_CPU}, clients on core ${CLIENT_CPU}; ${REPEAT} repeats × ${DURATION} s, variants alternating. Command: \`bun bench/production.ts ${process.argv.slice(2).join(" ")}\``,
  "",
  ...sections.flatMap((s) => [s, ""]),
].join("\n");
mkdirSync(join(import.meta.dir, "results"), { recursive: true });
writeFileSync(join(import.meta.dir, "results/production-latest.md"), report);
console.log(`\n${report}`);
