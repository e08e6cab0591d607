/**
 * Issue #13 "done when": every probe is refused in every run mode. The probe
 * app (fixtures/probe-app.ts) runs as a real program inline, with
 * `--workers 2`, with `--processes 2` and as a compiled binary; each gets
 * one probe per finding over raw TCP (the pool and Host findings have their
 * own deeper suites).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collect, freePort, runCli, testEnv, tryGet, waitFor } from "../cli/helpers.ts";
import { rawExchange, rawGet, rawPost } from "./raw-client.ts";

const APP = join(import.meta.dir, "fixtures/probe-app.ts");
const site = mkdtempSync(join(tmpdir(), "webfw-probe-site-"));
const binDir = mkdtempSync(join(tmpdir(), "webfw-probe-bin-"));
const binary = join(binDir, "probe");

beforeAll(async () => {
  const { code, stdout, stderr } = await runCli(["build", APP, "--outfile", binary]);
  if (code !== 0) throw new Error(`build failed: ${stdout}\n${stderr}`);
}, 120_000);

afterAll(() => {
  rmSync(site, { recursive: true, force: true });
  rmSync(binDir, { recursive: true, force: true });
});

const MODES: Array<[string, (port: number) => string[]]> = [
  ["inline", (port) => [process.execPath, APP, "--port", String(port)]],
  ["--workers 2", (port) => [process.execPath, APP, "--port", String(port), "--workers", "2"]],
  ["--processes 2", (port) => [process.execPath, APP, "--port", String(port), "--processes", "2"]],
  ["compiled binary --workers 2", (port) => [binary, "--port", String(port), "--workers", "2"]],
];

const get = (target: string, host: string | null = "127.0.0.1", version = "1.1") =>
  `GET ${target} HTTP/${version}\r\n${host === null ? "" : `Host: ${host}\r\n`}Connection: close\r\n\r\n`;

for (const [mode, command] of MODES) {
  describe(`issue #13 probes: ${mode}`, () => {
    let proc: ReturnType<typeof Bun.spawn>;
    let port: number;
    beforeAll(async () => {
      port = freePort();
      proc = Bun.spawn(command(port), {
        cwd: binDir,
        env: testEnv({ PROBE_SITE: site, WEBFW_LOG_LEVEL: "ERROR" }),
        stdout: "pipe",
        stderr: "pipe",
      });
      const err = collect(proc.stderr as ReadableStream<Uint8Array>);
      try {
        await waitFor(() => tryGet(`http://127.0.0.1:${port}/health`).then((r) => r?.ok), 20_000, "the app");
      } catch (error) {
        proc.kill("SIGKILL");
        throw new Error(`${(error as Error).message}\n${err.text()}`);
      }
    }, 30_000);
    afterAll(async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    });

    test("finding 1: no Host, bad Host, dot segments", async () => {
      // Several tries: under --processes each may land on another process.
      for (let i = 0; i < 4; i++) {
        expect((await rawExchange(port, get("/internal", null, "1.0"))).status).toBe(403);
        expect((await rawExchange(port, get("/internal", "x/y"))).status).toBe(400);
        const dots = await rawExchange(port, get("/internal/files/%2e%2e/%2e%2e/public"));
        expect(dots.body).toBe("public /public");
        expect((await rawExchange(port, get("/public/%2e%2e/internal"))).status).toBe(403);
      }
    });

    test("finding 2: an echo never serves the client's response", async () => {
      const attack = {
        statusCode: 302,
        description: "<script>1</script>",
        type: "html",
        headers: { "set-cookie": "a=b" },
      };
      const reply = await rawPost(
        port,
        "/echo",
        JSON.stringify(attack),
        "Content-Type: application/json\r\n",
      );
      expect(reply.status).toBe(200);
      expect(reply.headers["content-type"]).toBe("application/json;charset=utf-8");
      expect(reply.headers["set-cookie"]).toBeUndefined();
    });

    test("finding 3: a cross-site MCP POST does not run", async () => {
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "launch", arguments: {} },
      });
      const blob = await rawPost(port, "/mcp", body, "Origin: https://evil.example\r\n");
      expect(blob.status).toBe(403);
      const noType = await rawPost(port, "/mcp", body);
      expect(noType.status).toBe(415);
      const rebound = await rawExchange(
        port,
        `POST /mcp HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      expect(rebound.status).toBe(403);
    });

    test("finding 6: dot files by real path", async () => {
      expect((await rawGet(port, "/static/ok.txt")).body).toBe("fine");
      expect((await rawGet(port, "/static/config.txt")).status).toBe(404);
      expect((await rawGet(port, "/downloads/.env")).status).toBe(404);
    });
  });
}
