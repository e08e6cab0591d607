/**
 * The combination suite: FEATURES × LAYERS (table.ts) in every run mode. One server per run
 * mode, with every route and every layer; one test per cell. A cell a feature cannot take is
 * listed in its row's `skip` with the reason, printed here. How to add a row: table.ts header.
 *
 * COMBINATION_MODES=inline,workers runs some modes only (while working on one).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { freePort, REPO, runCli, tempDir, testEnv, tryGet, waitFor } from "../cli/helpers.ts";
import { startOtlpReceiver } from "../helpers/otlp-receiver.ts";
import { findProgram } from "../helpers/system-program.ts";
import { makeCert, type TestCert } from "../helpers/tls.ts";
import {
  type CallInit,
  clientTransport,
  FEATURES,
  LAYERS,
  observed,
  StreamTimingError,
  TOKEN,
} from "./table.ts";

const APP = join(import.meta.dir, "app.ts");

interface RunMode {
  name: string;
  /** The server speaks TLS (and HTTP/2): the clients use https, wss and fetch over HTTP/2. */
  tls?: boolean;
  /** The command that serves the app on `port`. */
  command(port: number): Promise<string[]>;
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
  { name: "inline", command: async (port) => [process.execPath, APP, "--port", String(port)] },
  {
    name: "--workers 2",
    command: async (port) => [process.execPath, APP, "--port", String(port), "--workers", "2"],
  },
  {
    name: "--processes 2",
    command: async (port) => [process.execPath, APP, "--port", String(port), "--processes", "2"],
  },
  {
    name: "compiled binary",
    async command(port) {
      tmp ??= tempDir("combination");
      const binary = join(tmp.path, "combo");
      const built = await runCli(["build", APP, "--outfile", binary]);
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
      return [
        process.execPath,
        APP,
        "--port",
        String(port),
        "--tls-cert",
        cert.cert,
        "--tls-key",
        cert.key,
        "--http2",
      ];
    },
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

const only = process.env.COMBINATION_MODES?.split(",");
const MODES = only ? ALL_MODES.filter((m) => only.some((o) => m.name.includes(o))) : ALL_MODES;

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
  describe(`combination: ${mode.name}`, () => {
    let base = "";
    let proc: ReturnType<typeof Bun.spawn> | null = null;
    let stderr = "";
    beforeAll(async () => {
      // Describe blocks run one after the other: the clients follow this mode's transport.
      clientTransport.tls = mode.tls === true;
      const port = freePort();
      const child = Bun.spawn(await mode.command(port), {
        cwd: REPO,
        env: testEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "100" }),
        stdout: "ignore",
        stderr: "pipe",
      });
      proc = child;
      void new Response(child.stderr).text().then((text) => {
        stderr = text;
      });
      base = `${mode.tls ? "https" : "http"}://127.0.0.1:${port}`;
      observed.base = base;
      const probe = (mode.tls ? { tls: { rejectUnauthorized: false } } : {}) as RequestInit;
      await waitFor(() => tryGet(`${base}/f/json`, probe), 30_000, `${mode.name} to listen`).catch(
        (error) => {
          throw new Error(`${error}\n${stderr}`);
        },
      );
    }, 120_000);
    afterAll(async () => {
      proc?.kill("SIGTERM");
      await proc?.exited;
    });

    for (const feature of FEATURES) {
      const call = (init: CallInit = {}) =>
        feature.exchange(base, {
          query: init.query,
          headers: { authorization: `Bearer ${TOKEN}`, ...init.headers },
        });
      test(`${feature.name}: the feature alone`, () =>
        onceMoreIfHeldBack(`${feature.name} alone`, async () => feature.verify(await call())));
      for (const layer of LAYERS) {
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

    test("the server is still healthy after every cell", async () => {
      const response = await fetch(`${base}/f/json`, {
        headers: { authorization: `Bearer ${TOKEN}` },
        ...(mode.tls ? { tls: { rejectUnauthorized: false } } : {}),
      } as RequestInit);
      expect(response.status).toBe(200);
    });
  });
}
