/** `bun cli/webfw.ts …` and `bun app.ts …` as subprocesses: exit codes, messages, pass-through. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { browserUrl, openUrl } from "../../src/launch/open.ts";
import {
  collect,
  freePort,
  MINI_APP,
  REPO,
  run,
  runCli,
  tempDir,
  testEnv,
  tryGet,
  waitFor,
} from "./helpers.ts";

let tmp: { path: string; remove: () => void };
beforeAll(() => {
  tmp = tempDir("cli");
});
afterAll(() => tmp.remove());

/** A fake browser: records the URL it was asked to open. */
function fakeBrowser(): { env: Record<string, string>; opened: () => string } {
  const log = join(tmp.path, `opened-${Math.random().toString(36).slice(2)}.txt`);
  const script = join(tmp.path, `browser-${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(script, `#!/bin/sh\nprintf '%s' "$1" > ${JSON.stringify(log)}\n`);
  chmodSync(script, 0o755);
  return { env: { BROWSER: script }, opened: () => (existsSync(log) ? readFileSync(log, "utf8") : "") };
}

describe("webfw: information flags", () => {
  test("--help and -h print the usage and exit 0", async () => {
    for (const flag of ["--help", "-h"]) {
      const { code, stdout, stderr } = await runCli([flag]);
      expect(code).toBe(0);
      expect(stderr).toBe("");
      expect(stdout).toContain("Usage:");
      expect(stdout).toContain("--processes N");
      expect(stdout).toContain("--compile-native-path PATH");
      expect(stdout).toContain("(alias: --compile-rust-path)");
    }
  });

  test("--version prints the package version", async () => {
    const { code, stdout } = await runCli(["--version"]);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(`webfw ${pkg.version}`);
  });

  test("--docs prints the documentation URL and opens it when a browser exists", async () => {
    const browser = fakeBrowser();
    const { code, stdout } = await runCli(["--docs"], {
      env: { ...browser.env, WEBFW_DOCS_URL: "https://docs.example/webfw" },
    });
    expect(code).toBe(0);
    expect(stdout).toContain("webfw documentation: https://docs.example/webfw (opening in your browser)");
    await waitFor(() => browser.opened() === "https://docs.example/webfw", 3000, "the fake browser");
  });

  test("--docs without any browser prints the URL of the bundled docs", async () => {
    const { code, stdout } = await runCli(["--docs"], { env: { BROWSER: undefined, PATH: "/nonexistent" } });
    expect(code).toBe(0);
    expect(stdout).toContain(`webfw documentation: file://${REPO}/docs/`);
    expect(stdout).not.toContain("opening");
  });
});

describe("webfw: bad command lines exit 2 with a message", () => {
  const cases: [string[], string][] = [
    [["app.ts", "--bogus"], "unknown flag --bogus"],
    [["--processes", "0"], '--processes must be an integer from 1 to 1024, got "0"'],
    [["--processes", "-2"], "--processes must be an integer from 1 to 1024"],
    [["--processes", "two"], "--processes must be an integer"],
    [["--workers", "0"], "--workers must be an integer from 1 to 1024"],
    [["--workers=1.5"], "--workers must be an integer"],
    [["--port", "70000"], '--port must be an integer from 0 to 65535, got "70000"'],
    [["--port", "abc"], "--port must be an integer"],
    [["--port"], "--port needs a value"],
    [["--log-level", "chatty"], "--log-level must be one of DEBUG, INFO, WARNING, ERROR"],
    [["--host="], "--host needs a non-empty value"],
    [["--dev", "--processes", "2"], "--dev cannot be combined with --processes greater than 1"],
    [["--create", "--template", "oracle"], "--template must be one of plain, sqlite, postgres"],
    [["--template", "sqlite"], "--template only applies together with --create"],
    [["--dev=perhaps"], "--dev is a switch"],
    [[], "missing the app file"],
    [["does-not-exist.ts"], "app file not found: does-not-exist.ts"],
    [["a.ts", "b.ts"], 'unexpected argument "b.ts"'],
    [["--create-native-file", "9lives"], '"9lives" cannot name a native function'],
  ];
  for (const [args, message] of cases) {
    test(`webfw ${args.join(" ") || "(nothing)"}`, async () => {
      const { code, stdout, stderr } = await runCli(args, { cwd: tmp.path });
      expect(code).toBe(2);
      expect(stderr).toContain(message);
      expect(stdout).toBe("");
    });
  }

  test("the usage follows a flag error", async () => {
    const { stderr } = await runCli(["--prot", "80"]);
    expect(stderr).toStartWith("webfw: unknown flag --prot (did you mean --port?)\n\nUsage:");
  });

  test("a bad WEBFW_PORT is refused too", async () => {
    const { code, stderr } = await runCli([MINI_APP], { env: { WEBFW_PORT: "eighty" } });
    expect(code).toBe(2);
    expect(stderr).toContain('WEBFW_PORT must be an integer from 0 to 65535, got "eighty"');
  });
});

describe("bun app.ts [flags] goes through the same parser (app.start)", () => {
  test("--help, --version, bad values", async () => {
    const help = await run(MINI_APP, ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--open-browser");
    const version = await run(MINI_APP, ["--version"]);
    expect(version.stdout.trim()).toBe(`webfw ${pkg.version}`);
    const bad = await run(MINI_APP, ["--port", "70000"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--port must be an integer from 0 to 65535, got "70000"');
    const unknown = await run(MINI_APP, ["--wrokers", "2"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown flag --wrokers (did you mean --workers?)");
  });
});

/** Starts a long-running process and returns helpers; always stop it. */
function start(args: string[], env: Record<string, string | undefined> = {}) {
  const proc = Bun.spawn([process.execPath, ...args], {
    cwd: REPO,
    env: testEnv(env),
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = collect(proc.stdout);
  const err = collect(proc.stderr);
  return { proc, out, err };
}

async function info(port: number): Promise<Record<string, unknown>> {
  const res = await waitFor(() => tryGet(`http://127.0.0.1:${port}/info`), 10_000, "the app to listen");
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe("webfw app.ts [flags] runs the app with its flags", () => {
  test("flags reach app.start(); SIGTERM is forwarded and the exit code kept", async () => {
    const port = freePort();
    const { proc } = start([
      "cli/webfw.ts",
      MINI_APP,
      "--port",
      String(port),
      "--workers=3",
      "--disable-openapi",
      "--log-level",
      "error",
    ]);
    try {
      const body = await info(port);
      expect(body).toMatchObject({
        role: "server",
        reusePort: false,
        workers: 3,
        processes: 1,
        logLevel: "ERROR",
        disableOpenapi: true,
        argv: ["--port", String(port), "--workers=3", "--disable-openapi", "--log-level", "error"],
      });
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
      expect(await tryGet(`http://127.0.0.1:${port}/`)).toBeUndefined();
    } finally {
      proc.kill("SIGKILL");
    }
  });

  test("webfw becomes the app: the process it started serves, with no second bun behind it", async () => {
    const port = freePort();
    const { proc } = start(["cli/webfw.ts", MINI_APP, "--port", String(port)]);
    try {
      const body = await info(port);
      // The app runs in the command's own process (docs/cli.md, "One process"): the pid `webfw` got serves.
      expect(body.pid).toBe(proc.pid);
      expect(readFileSync(`/proc/${proc.pid}/cmdline`, "utf8").split("\0")).toContain(MINI_APP);
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
    } finally {
      proc.kill("SIGKILL");
    }
  });

  test("webfw app.ts runs the app as the main module, with neither citty nor the subcommands loaded", async () => {
    // docs/cli.md, "One process": the app runs in the command's own process, as `bun app.ts` would.
    const app = join(REPO, "test/cli/fixtures/print-main.ts");
    const ran = await runCli([app, "--port", "0", "--workers=2"]);
    expect(ran.code).toBe(0);
    const seen = JSON.parse(ran.stdout) as { main: boolean; argv: string[]; loaded: string[] };
    expect(seen.main).toBe(true);
    expect(seen.argv).toEqual([app, "--port", "0", "--workers=2"]);
    const COMMAND_MODULES = /citty|cli\/commands|launch\/(actions|build|help|version|prepare-start)|node:/;
    const loaded = seen.loaded.map((file) => file.slice(REPO.length + 1));
    expect(loaded).toContain("src/launch/flags.ts");
    expect(loaded.filter((file) => COMMAND_MODULES.test(file))).toEqual([]);
    // The other lines go through citty (the check can fail).
    const preload = join(REPO, "test/cli/fixtures/loaded-at-exit.ts");
    const version = await run("--preload", [preload, "cli/webfw.ts", "--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe(`webfw ${pkg.version}`);
    const versionLoaded = (
      JSON.parse(version.stderr.trim().split("\n").at(-1) ?? "{}") as { loaded: string[] }
    ).loaded;
    expect(versionLoaded.filter((file) => COMMAND_MODULES.test(file)).length).toBeGreaterThan(2);
  });

  test("webfw app: a symlinked app and a CommonJS app are the main module too", async () => {
    const target = join(REPO, "test/cli/fixtures/print-main.ts");
    const link = join(tmp.path, "linked-app.ts");
    symlinkSync(target, link);
    const linked = await runCli([link, "--port", "0"]);
    expect(linked.code).toBe(0);
    // Bun resolves the link: the app's own path is the target's, and it is the main module.
    expect(JSON.parse(linked.stdout)).toMatchObject({
      main: true,
      path: target,
      argv: [target, "--port", "0"],
    });
    const cjs = await runCli([join(REPO, "test/cli/fixtures/print-main.cjs"), "--port", "0"]);
    expect(cjs.code).toBe(0);
    expect(JSON.parse(cjs.stdout)).toMatchObject({ main: true });
    // A folder is not an app file, even one Bun could resolve to its index file.
    const folder = await runCli([join(REPO, "src"), "--port", "0"]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain("app file not found");
  });

  test("WEBFW_HOST / WEBFW_PORT apply, and --port wins over WEBFW_PORT", async () => {
    const envPort = freePort();
    const a = start([MINI_APP], { WEBFW_PORT: String(envPort), WEBFW_HOST: "127.0.0.1" });
    try {
      expect((await info(envPort)).role).toBe("server");
    } finally {
      a.proc.kill("SIGTERM");
      await a.proc.exited;
    }
    const flagPort = freePort();
    const b = start([MINI_APP, "--port", String(flagPort)], { WEBFW_PORT: String(envPort) });
    try {
      expect((await info(flagPort)).role).toBe("server");
      expect(await tryGet(`http://127.0.0.1:${envPort}/info`)).toBeUndefined();
    } finally {
      b.proc.kill("SIGTERM");
      await b.proc.exited;
    }
  });

  test("--log-level INFO writes an access line per request; WARNING does not", async () => {
    for (const [level, expectLine] of [
      ["INFO", true],
      ["WARNING", false],
    ] as const) {
      const port = freePort();
      const { proc, err } = start([MINI_APP, "--port", String(port), "--log-level", level]);
      try {
        await info(port);
        await fetch(`http://127.0.0.1:${port}/missing`);
        if (expectLine) {
          await waitFor(() => err.text().includes('msg="GET /missing 404"'), 3000, "the access line");
          expect(err.text()).toMatch(
            /level=INFO msg="GET \/missing 404" method=GET path=\/missing status=404 duration_ms=\d/,
          );
        }
      } finally {
        proc.kill("SIGTERM");
        await proc.exited;
      }
      if (!expectLine) expect(err.text()).not.toContain("GET /missing");
    }
  });

  test("--open-browser is planned for the server (the app opens the URL once it listens)", async () => {
    const port = freePort();
    const { proc } = start([MINI_APP, "--port", String(port), "--open-browser"]);
    try {
      expect((await info(port)).openBrowser).toBe(true);
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  });
});

describe("opening a browser", () => {
  test("openUrl uses $BROWSER", async () => {
    const browser = fakeBrowser();
    expect(openUrl("http://127.0.0.1:1234/", { ...process.env, ...browser.env })).toBe(true);
    await waitFor(() => browser.opened() === "http://127.0.0.1:1234/", 3000, "the fake browser");
  });

  test("openUrl reports false when nothing can open a URL", () => {
    expect(openUrl("http://x/", { PATH: "/nonexistent" })).toBe(false);
  });

  test("browserUrl maps wildcard hosts to localhost", () => {
    expect(browserUrl("0.0.0.0", 8080)).toBe("http://localhost:8080/");
    expect(browserUrl("::", 80)).toBe("http://localhost:80/");
    expect(browserUrl("::1", 80)).toBe("http://[::1]:80/");
    expect(browserUrl("127.0.0.1", 1)).toBe("http://127.0.0.1:1/");
  });
});

describe("webfw native flags", () => {
  test("--create-native-file NAME writes the files; again refuses to overwrite (exit 1)", async () => {
    const first = await runCli(["--create-native-file", "native/triple"], { cwd: tmp.path });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("triple.c");
    expect(existsSync(join(tmp.path, "native/triple.c"))).toBe(true);
    expect(existsSync(join(tmp.path, "native/triple.ts"))).toBe(true);
    const again = await runCli(["--create-rust-file", "native/triple"], { cwd: tmp.path });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already exists");
  });

  test("--compile-native-path PATH compiles and reports; a broken file exits 1", async () => {
    const ok = join(tmp.path, "ok-native");
    await Bun.write(join(ok, "inc.c"), "int inc(int x) { return x + 1; }\n");
    const good = await runCli(["--compile-native-path", ok]);
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/(compiled|ok): .*inc\.c/);

    const bad = join(tmp.path, "bad-native");
    await Bun.write(join(bad, "oops.c"), "int oops( {\n");
    const broken = await runCli(["--compile-rust-path", bad], { env: { WEBFW_NATIVE_COMPILER: "cc" } });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("oops.c");

    const missing = await runCli(["--compile-native-path", join(tmp.path, "nowhere")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no such file or directory");
  });
});
