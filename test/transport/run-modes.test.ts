/**
 * `--tls-cert/--tls-key/--http2/--http3` in every run mode, through examples/https.ts:
 * `bun app.ts`, `--processes 2`, `--dev` (also after a reload) and the `webfw build` executable.
 * curl checks the certificate (`--cacert`) and the HTTP version.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { collect, freePort, REPO, runCli, tempDir, testEnv, waitFor } from "../cli/helpers.ts";
import { describeWithProgram } from "../helpers/system-program.ts";
import { curl, makeCert, type TestCert } from "../helpers/tls.ts";

describeWithProgram(
  "openssl",
  "apt-get install openssl",
  "TLS flags in every run mode (certificates made with openssl)",
  () => {
    const EXAMPLE = join(REPO, "examples/https.ts");

    let cert: TestCert;
    let tmp: { path: string; remove: () => void };
    beforeAll(async () => {
      cert = await makeCert();
      tmp = tempDir("tls-modes");
    });
    afterAll(() => {
      cert?.remove();
      tmp?.remove();
    });

    function launch(command: string[], cwd = REPO) {
      const proc = Bun.spawn(command, { cwd, env: testEnv(), stdout: "pipe", stderr: "pipe" });
      return { proc, out: collect(proc.stdout), err: collect(proc.stderr) };
    }

    async function stop(proc: Bun.Subprocess): Promise<number> {
      proc.kill("SIGTERM");
      return proc.exited;
    }

    /** curl over HTTP/2 with the test CA; undefined while nothing answers yet. */
    async function h2(url: string): Promise<{ version: string; body: string } | undefined> {
      const result = await curl(url, ["--http2", "--cacert", cert.cert, "--max-time", "2"]);
      return result.code === 0 && result.status === 200
        ? { version: result.httpVersion, body: result.body }
        : undefined;
    }

    const tlsFlags = () => ["--tls-cert", cert.cert, "--tls-key", cert.key, "--http2"];

    describeWithProgram("curl", "apt-get install curl", "TLS and HTTP/2 from the command line", () => {
      test("bun app.ts --tls-cert --tls-key --http2: https url, HTTP/2", async () => {
        const port = freePort();
        const { proc, err } = launch([process.execPath, EXAMPLE, "--port", String(port), ...tlsFlags()]);
        try {
          const answer = await waitFor(() => h2(`https://127.0.0.1:${port}/`), 15_000, "the https server");
          expect(answer.version).toBe("2");
          expect(JSON.parse(answer.body).hello).toBe("over TLS");
          // The framework's startup line (docs/cli.md) has the https URL.
          await waitFor(() => err.text().includes("listening on"), 5_000, "the url line");
          expect(err.text()).toContain(`listening on https://127.0.0.1:${port}`);
        } catch (error) {
          throw new Error(`${error}\n${err.text()}`);
        } finally {
          expect(await stop(proc)).toBe(0);
        }
      }, 30_000);

      test("WEBFW_TLS_CERT/WEBFW_TLS_KEY are read too; --http3 adds QUIC", async () => {
        const port = freePort();
        const proc = Bun.spawn([process.execPath, EXAMPLE, "--port", String(port), "--http3"], {
          cwd: REPO,
          env: testEnv({ WEBFW_TLS_CERT: cert.cert, WEBFW_TLS_KEY: cert.key }),
          stdout: "ignore",
          stderr: "pipe",
        });
        try {
          const url = `https://127.0.0.1:${port}/`;
          await waitFor(
            async () => (await curl(url, ["--cacert", cert.cert])).status === 200,
            15_000,
            "https",
          );
          const h3 = await fetch(url, {
            protocol: "http3",
            tls: { rejectUnauthorized: false },
          } as RequestInit);
          expect(h3.status).toBe(200);
        } finally {
          expect(await stop(proc)).toBe(0);
        }
      }, 30_000);

      test("--processes 2: every child serves HTTPS/2 on the shared port", async () => {
        const port = freePort();
        const { proc, err } = launch([
          process.execPath,
          EXAMPLE,
          "--port",
          String(port),
          "--processes",
          "2",
          ...tlsFlags(),
        ]);
        try {
          const pids = new Set<number>();
          await waitFor(
            async () => {
              const answer = await h2(`https://127.0.0.1:${port}/`);
              if (answer) {
                expect(answer.version).toBe("2");
                pids.add(JSON.parse(answer.body).pid);
              }
              return pids.size === 2;
            },
            20_000,
            "answers from both children",
          );
          expect(pids.has(proc.pid)).toBe(false);
        } catch (error) {
          throw new Error(`${error}\n${err.text()}`);
        } finally {
          expect(await stop(proc)).toBe(0);
        }
      }, 40_000);

      test("--dev: HTTPS/2, and still after a reload", async () => {
        const dir = join(tmp.path, "dev");
        const app = join(dir, "app.ts");
        const source = (message: string) =>
          `import { Webfw } from ${JSON.stringify(join(REPO, "src/index.ts"))};\n` +
          `const app = new Webfw(import.meta.path);\napp.get("/", () => ${JSON.stringify(message)});\nawait app.start();\n`;
        await Bun.write(app, source("first"));
        const port = freePort();
        const { proc, err } = launch(
          [process.execPath, app, "--dev", "--port", String(port), ...tlsFlags()],
          dir,
        );
        try {
          const url = `https://127.0.0.1:${port}/`;
          const first = await waitFor(() => h2(url), 15_000, "the dev server");
          expect(first).toEqual({ version: "2", body: "first" });
          writeFileSync(app, source("second"));
          const second = await waitFor(
            async () => {
              const answer = await h2(url);
              return answer?.body === "second" ? answer : undefined;
            },
            15_000,
            "the reloaded server",
          );
          expect(second.version).toBe("2");
        } catch (error) {
          throw new Error(`${error}\n${err.text()}`);
        } finally {
          await stop(proc);
        }
      }, 40_000);

      test("the webfw build executable takes the same flags", async () => {
        const binary = join(tmp.path, "https-app");
        const built = await runCli(["build", EXAMPLE, "--outfile", binary]);
        expect(built.code).toBe(0);
        const port = freePort();
        const { proc, err } = launch([binary, "--port", String(port), ...tlsFlags()], tmp.path);
        try {
          const answer = await waitFor(() => h2(`https://127.0.0.1:${port}/`), 15_000, "the executable");
          expect(answer.version).toBe("2");
        } catch (error) {
          throw new Error(`${error}\n${err.text()}`);
        } finally {
          expect(await stop(proc)).toBe(0);
        }
      }, 90_000);

      test("mistakes exit 2 before anything listens", async () => {
        const onlyCert = launch([process.execPath, EXAMPLE, "--port", "0", "--tls-cert", cert.cert]);
        expect(await onlyCert.proc.exited).toBe(2);
        await onlyCert.err.done;
        expect(onlyCert.err.text()).toContain("--tls-cert needs --tls-key too");
        const missing = launch([
          process.execPath,
          EXAMPLE,
          "--port",
          String(freePort()),
          "--processes",
          "2",
          "--tls-cert",
          join(tmp.path, "missing.pem"),
          "--tls-key",
          cert.key,
        ]);
        expect(await missing.proc.exited).toBe(2);
        await missing.err.done;
        expect(missing.err.text()).toContain(
          `--tls-cert: cannot read '${join(tmp.path, "missing.pem")}' (no such file)`,
        );
        // One server: start() rejects, the process fails with the reason.
        const single = launch([process.execPath, EXAMPLE, "--port", "0", "--http3"]);
        expect(await single.proc.exited).not.toBe(0);
        await single.err.done;
        expect(single.err.text()).toContain("http3 needs tls");
      }, 30_000);
    });
  },
);
