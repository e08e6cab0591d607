/**
 * The combination suite: FEATURES × LAYERS (table.ts) in every run mode. One server per run
 * mode, with every route and every layer; one test per cell. A cell a feature cannot take is
 * listed in its row's `skip` with the reason, printed here. How to add a row: table.ts header.
 *
 * COMBINATION_MODES=inline,workers runs some modes only (while working on one).
 * COMBINATION_FROM=dist runs the servers on the built package instead of the sources (below).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort, REPO, runCli, tempDir, testEnv, tryGet, waitFor } from "../cli/helpers.ts";
import { type Balancer, startBalancer } from "../helpers/balancer.ts";
import { startOtlpReceiver } from "../helpers/otlp-receiver.ts";
import { startRedis } from "../helpers/redis.ts";
import { runCommand } from "../helpers/run-command.ts";
import { findProgram } from "../helpers/system-program.ts";
import { makeCert, type TestCert } from "../helpers/tls.ts";
import {
  type CallInit,
  clientTransport,
  FEATURES,
  type Feature,
  LAYERS,
  observed,
  StreamTimingError,
  type TimedExchange,
  TOKEN,
} from "./table.ts";

const APP = join(import.meta.dir, "app.ts");

/**
 * COMBINATION_FROM=dist: the servers run the built package (dist/, made by `npm run build`), as an
 * installed webfw runs. Each app process reads dist.tsconfig.json, the repository's settings
 * without `paths`, so the app's `import … from "webfw"` resolves through package.json `exports` to
 * dist/ (Workers and `--processes` children inherit the flag); the compiled binary is built by the
 * built command, dist/cli/webfw.js, with the same tsconfig. Default modes there: inline and compiled
 * binary (docs/testing.md, "Against the built package").
 */
const FROM = process.env.COMBINATION_FROM ?? "src";
if (FROM !== "src" && FROM !== "dist") throw new Error(`COMBINATION_FROM is src or dist, got "${FROM}"`);
const FROM_DIST = FROM === "dist";
const DIST_TSCONFIG = join(import.meta.dir, "dist.tsconfig.json");
if (FROM_DIST && !existsSync(join(REPO, "dist/src/index.js")))
  throw new Error("COMBINATION_FROM=dist: dist/ is not built; run `npm run build` first");
/** `bun` and the flags that make it load webfw from where this run asks. */
const BUN = FROM_DIST ? [process.execPath, "--tsconfig-override", DIST_TSCONFIG] : [process.execPath];
/** Where the app's `webfw` import resolves (the app answers it at /combination/served-from). */
const SERVED_FROM = FROM_DIST ? "/dist/src/index.js" : "/src/index.ts";

/** Where the compiled binary mode writes the executable. */
function binaryPath(): string {
  tmp ??= tempDir("combination");
  return join(tmp.path, "combo");
}

/** `webfw build` of the app: the sources' command, or the built one reading dist.tsconfig.json. */
async function buildApp(binary: string) {
  if (!FROM_DIST) return runCli(["build", APP, "--outfile", binary]);
  const command = [process.execPath, join(REPO, "dist/cli/webfw.js"), "build", APP, "--outfile", binary];
  return runCommand([...command, "--tsconfig", DIST_TSCONFIG], { cwd: REPO, env: testEnv() });
}

interface RunMode {
  name: string;
  /** The server speaks TLS (and HTTP/2): the clients use https, wss and fetch over HTTP/2. */
  tls?: boolean;
  /**
   * Two servers standing in for two machines, sharing a real redis-server (`REDIS_URL`), behind a
   * balancer without sticky routing (test/helpers/balancer.ts); every request opens its own
   * connection, so consecutive requests reach different machines.
   */
  machines?: boolean;
  /** The command that serves the app on `port`. */
  command(port: number): Promise<string[]>;
  /** A compiled binary: the app's code is bundled, it cannot tell where `webfw` came from. */
  bundled?: boolean;
}

let tmp: { path: string; remove: () => void } | null = null;
let cert: TestCert | null = null;
// Every mode exports its spans here (the observability column, table.ts).
const receiver = startOtlpReceiver();
observed.receiver = receiver;
afterAll(() => {
  tmp?.remove();
  cert?.remove();
  receiver.stop();
});

const ALL_MODES: RunMode[] = [
  { name: "inline", command: async (port) => [...BUN, APP, "--port", String(port)] },
  {
    name: "--workers 2",
    command: async (port) => [...BUN, APP, "--port", String(port), "--workers", "2"],
  },
  {
    name: "--processes 2",
    command: async (port) => [...BUN, APP, "--port", String(port), "--processes", "2"],
  },
  {
    // The dev reloader (a watcher process restarting one serving child) with Bun's development mode.
    name: "--dev",
    command: async (port) => [...BUN, APP, "--port", String(port), "--dev"],
  },
  {
    name: "compiled binary",
    bundled: true,
    async command(port) {
      const binary = binaryPath();
      const built = await buildApp(binary);
      if (built.code !== 0) throw new Error(`webfw build failed: ${built.stdout}\n${built.stderr}`);
      // Binary with Workers: the Workers must not run the app's start block (import.meta.main).
      return [binary, "--port", String(port), "--workers", "2"];
    },
  },
  {
    name: "https + http2",
    tls: true,
    async command(port) {
      cert ??= await makeCert();
      return [...BUN, APP, "--port", String(port), "--tls-cert", cert.cert, "--tls-key", cert.key, "--http2"];
    },
  },
  {
    name: "two machines + Redis",
    machines: true,
    command: async (port) => [...BUN, APP, "--port", String(port)],
  },
];

// The https mode makes its certificate with openssl (test/helpers/tls.ts): without it, skipped with
// the reason, except under CI=true where a missing program fails (test/helpers/system-program.ts).
if (findProgram("openssl") === null && process.env.CI !== "true") {
  console.log('skipped "combination: https + http2": openssl is not installed (apt-get install openssl)');
  ALL_MODES.splice(
    ALL_MODES.findIndex((mode) => mode.tls === true),
    1,
  );
}

// The two-machine mode needs redis-server; the same rule.
if (findProgram("redis-server") === null && process.env.CI !== "true") {
  console.log(
    'skipped "combination: two machines + Redis": redis-server is not installed (apt-get install redis-server)',
  );
  ALL_MODES.splice(
    ALL_MODES.findIndex((mode) => mode.machines === true),
    1,
  );
}

/** Against dist/: the modes whose loading differs from the sources' (docs/testing.md). */
const DIST_MODES = ["inline", "compiled binary"];
const only = process.env.COMBINATION_MODES?.split(",");
const MODES = only
  ? ALL_MODES.filter((m) => only.some((o) => m.name.includes(o)))
  : FROM_DIST
    ? ALL_MODES.filter((m) => DIST_MODES.includes(m.name))
    : ALL_MODES;

/** Runs a cell; a stream whose chunks arrived together gets one more try (see StreamTimingError). */
async function onceMoreIfHeldBack(cell: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof StreamTimingError)) throw error;
    console.warn(`${cell}: ${error.message}; once more`);
    await run();
  }
}

for (const mode of MODES) {
  describe(`combination${FROM_DIST ? " (dist)" : ""}: ${mode.name}`, () => {
    let base = "";
    let backends: string[] = [];
    const procs: ReturnType<typeof Bun.spawn>[] = [];
    let stderr = "";
    let redis: Subprocess | null = null;
    let balancer: Balancer | null = null;
    beforeAll(async () => {
      // Describe blocks run one after the other: the clients follow this mode's transport.
      clientTransport.tls = mode.tls === true;
      clientTransport.fresh = mode.machines === true;
      const env: Record<string, string> = {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: "25",
      };
      if (mode.machines) {
        const started = await startRedis();
        redis = started.process;
        env.REDIS_URL = started.url;
      }
      const ports = mode.machines ? [freePort(), freePort()] : [freePort()];
      const scheme = mode.tls ? "https" : "http";
      for (const port of ports) {
        const child = Bun.spawn(await mode.command(port), {
          cwd: REPO,
          env: testEnv(env),
          stdout: "ignore",
          stderr: "pipe",
        });
        procs.push(child);
        void new Response(child.stderr).text().then((text) => {
          stderr += text;
        });
      }
      backends = ports.map((port) => `${scheme}://127.0.0.1:${port}`);
      const probe = (mode.tls ? { tls: { rejectUnauthorized: false } } : {}) as RequestInit;
      for (const backend of backends) {
        await waitFor(() => tryGet(`${backend}/f/json`, probe), 30_000, `${mode.name} to listen`).catch(
          (error) => {
            throw new Error(`${error}\n${stderr}`);
          },
        );
      }
      if (mode.machines) {
        balancer = startBalancer(ports.map((port) => ({ hostname: "127.0.0.1", port })));
        base = balancer.url;
      } else {
        base = backends[0] as string;
      }
      // Each machine has its own /metrics: the observability column sums them.
      observed.scraped = backends;
    }, 120_000);
    afterAll(async () => {
      for (const proc of procs) proc.kill("SIGTERM");
      for (const proc of procs) await proc.exited;
      balancer?.stop();
      redis?.kill();
      clientTransport.fresh = false;
    });

    /** The feature's exchange with the suite's bearer token and the given extras. */
    const callFor =
      (feature: Feature) =>
      (init: CallInit = {}) =>
        feature.exchange(base, {
          query: init.query,
          headers: { authorization: `Bearer ${TOKEN}`, ...init.headers },
        });

    test(`the app's webfw is the ${FROM === "dist" ? "built package" : "sources"}`, async () => {
      if (mode.bundled) {
        // Inside the executable the app cannot resolve `webfw`. The package's build defines
        // process.env.WEBFW_BUILT_LAYOUT away (src/package-layout.ts): only code bundled from the
        // sources still names it.
        const binary = Buffer.from(await Bun.file(binaryPath()).arrayBuffer());
        expect(binary.includes("process.env.WEBFW_BUILT_LAYOUT")).toBe(!FROM_DIST);
        return;
      }
      const response = await fetch(`${base}/combination/served-from`, {
        ...(mode.tls ? { tls: { rejectUnauthorized: false } } : {}),
      } as RequestInit);
      expect(response.status).toBe(200);
      expect(await response.text()).toEndWith(SERVED_FROM);
    });

    for (const feature of FEATURES) {
      const call = callFor(feature);
      test(`${feature.name}: the feature alone`, () =>
        onceMoreIfHeldBack(`${feature.name} alone`, async () => feature.verify(await call())));
      for (const layer of LAYERS) {
        if (layer.wait) continue;
        const reason = feature.skip?.[layer.name];
        if (reason) {
          test.skip(`${feature.name} × ${layer.name} (n/a: ${reason})`, () => {});
          continue;
        }
        test(
          `${feature.name} × ${layer.name}`,
          () => onceMoreIfHeldBack(`${feature.name} × ${layer.name}`, () => layer.check(feature, call)),
          15_000,
        );
      }
    }

    // A layer with a `wait` (the request-timeout column) waits on the server's clock, not on work:
    // its first cell starts every feature's `wait` at once, and each cell checks its own outcome.
    // These cells come after the mode's other cells, so no other cell's request waits behind a slow
    // one (docs/testing.md, "What the suite costs").
    for (const layer of LAYERS) {
      const wait = layer.wait;
      if (!wait) continue;
      const cells = FEATURES.filter((feature) => !feature.skip?.[layer.name]);
      let waited: Map<string, Promise<TimedExchange>> | null = null;
      const startAll = () =>
        new Map(
          cells.map((feature) => {
            const outcome = wait(feature, callFor(feature));
            // Handled here: a cell awaits its own when its turn comes, after it may have failed.
            outcome.catch(() => {});
            return [feature.name, outcome];
          }),
        );
      for (const feature of FEATURES) {
        const reason = feature.skip?.[layer.name];
        if (reason) {
          test.skip(`${feature.name} × ${layer.name} (n/a: ${reason})`, () => {});
          continue;
        }
        const cell = `${feature.name} × ${layer.name}`;
        test(cell, async () => {
          waited ??= startAll();
          const outcome = await (waited.get(feature.name) as Promise<TimedExchange>);
          await onceMoreIfHeldBack(cell, () => layer.check(feature, callFor(feature), outcome));
        }, 30_000);
      }
    }

    test("the server (every machine) is still healthy after every cell", async () => {
      for (const backend of backends) {
        const response = await fetch(`${backend}/f/json`, {
          headers: { authorization: `Bearer ${TOKEN}` },
          ...(mode.tls ? { tls: { rejectUnauthorized: false } } : {}),
        } as RequestInit);
        expect(response.status).toBe(200);
      }
      // Behind the balancer, both machines really served cells.
      if (balancer) for (const count of balancer.counts) expect(count).toBeGreaterThan(50);
    });
  });
}
