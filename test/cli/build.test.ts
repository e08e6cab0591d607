/** `webfw build app.ts --outfile app`: one executable that serves, supervises and loads native code. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import {
  BUILD_EXTRA_ENTRYPOINTS,
  buildCommand,
  embeddedPath,
  extraEntrypoints,
  parseBuildArgs,
} from "../../src/launch/build.ts";
import { FlagError } from "../../src/launch/flags.ts";
import { collect, freePort, MINI_APP, REPO, runCli, tempDir, testEnv, tryGet, waitFor } from "./helpers.ts";

const NATIVE_APP = join(import.meta.dir, "fixtures/native-app.ts");
/** What Bun writes at the top of a module it compiled to bytecode. */
const PRAGMA = "// @bun @bytecode";
const HAS_CC = Bun.which("cc") !== null;

let tmp: { path: string; remove: () => void };
let miniBinary: string;

beforeAll(async () => {
  tmp = tempDir("build");
  miniBinary = join(tmp.path, "mini");
  const { code, stdout, stderr } = await runCli(["build", MINI_APP, "--outfile", miniBinary]);
  if (code !== 0) throw new Error(`build failed: ${stdout}\n${stderr}`);
}, 60_000);
afterAll(() => tmp.remove());

function startBinary(binary: string, args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn([binary, ...args], {
    cwd: tmp.path,
    env: testEnv(env),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { proc, err: collect(proc.stderr) };
}

describe("webfw build", () => {
  test("the executable serves and takes the usual flags", async () => {
    expect(existsSync(miniBinary)).toBe(true);
    const port = freePort();
    const { proc } = startBinary(miniBinary, ["--port", String(port), "--workers", "2"]);
    try {
      const res = await waitFor(() => tryGet(`http://127.0.0.1:${port}/`), 10_000, "the binary to listen");
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("hello from mini");
      const info = (await (await fetch(`http://127.0.0.1:${port}/info`)).json()) as Record<string, unknown>;
      expect(info).toMatchObject({ role: "server", workers: 2 });
    } finally {
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
    }
  });

  test("--processes 2 from the executable re-spawns the executable itself", async () => {
    const port = freePort();
    const events = join(tmp.path, "events");
    mkdirSync(events, { recursive: true });
    const { proc } = startBinary(miniBinary, ["--processes", "2", "--port", String(port)], {
      MINI_EVENTS_DIR: events,
    });
    try {
      await waitFor(
        () => readdirSync(events).filter((f) => f.startsWith("start-")).length === 2,
        10_000,
        "two children",
      );
      const info = (await (await fetch(`http://127.0.0.1:${port}/info`)).json()) as Record<string, unknown>;
      expect(info.role).toBe("supervised-child");
      // The child's command line is the binary and the flags, with no script path in between.
      const pid = info.pid as number;
      const cmdline = (await Bun.file(`/proc/${pid}/cmdline`).text()).split("\0").filter(Boolean);
      expect(cmdline).toEqual([miniBinary, "--processes", "2", "--port", String(port)]);
    } finally {
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
    }
  });

  const nativeCases: [string, string][] = [["tinycc", "TinyCC (embedded C copied out first)"]];
  if (HAS_CC) nativeCases.push(["cc", "the system C compiler"]);
  // One executable for every compiler: the compiler is chosen when it starts (WEBFW_NATIVE_COMPILER).
  let nativeBuild: ReturnType<typeof runCli> | null = null;
  const nativeBinary = () => join(tmp.path, "native");
  for (const [compiler, label] of nativeCases) {
    test(`native C embedded in the executable loads with ${label}`, async () => {
      const binary = nativeBinary();
      nativeBuild ??= runCli(["build", NATIVE_APP, "-o", binary]);
      const built = await nativeBuild;
      expect(built.code).toBe(0);
      const port = freePort();
      const { proc, err } = startBinary(binary, ["--port", String(port)], {
        WEBFW_NATIVE_COMPILER: compiler,
        WEBFW_NATIVE_CACHE: join(tmp.path, `cache-${compiler}`),
      });
      try {
        const res = await waitFor(() => tryGet(`http://127.0.0.1:${port}/`), 15_000, "the native binary");
        expect(await res.text()).toBe("twice(21) = 42");
      } catch (error) {
        throw new Error(`${error}\n${err.text()}`);
      } finally {
        proc.kill("SIGTERM");
        await proc.exited;
      }
    }, 60_000);
  }

  test("--no-bytecode builds an executable without the precompiled bytecode, and it serves too", async () => {
    const plain = join(tmp.path, "mini-no-bytecode");
    const built = await runCli(["build", MINI_APP, "--no-bytecode", "--outfile", plain]);
    expect(built.code).toBe(0);
    // Bun marks a module compiled to bytecode with this pragma: the default build holds the app's
    // module and the worker entry as bytecode on top of what the runtime itself carries.
    const marks = async (file: string) => {
      // Counted in the bytes: decoding a 100 MB executable as text would cost more than the build.
      const bytes = Buffer.from(await Bun.file(file).arrayBuffer());
      let count = 0;
      for (let at = bytes.indexOf(PRAGMA); at !== -1; at = bytes.indexOf(PRAGMA, at + 1)) count++;
      return count;
    };
    expect(await marks(miniBinary)).toBeGreaterThanOrEqual((await marks(plain)) + 2);
    const port = freePort();
    const { proc } = startBinary(plain, ["--port", String(port)]);
    try {
      const res = await waitFor(() => tryGet(`http://127.0.0.1:${port}/`), 10_000, "the binary to listen");
      expect(await res.text()).toBe("hello from mini");
    } finally {
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
    }
  }, 60_000);

  test("--sourcemap: stack traces name the sources, and no map file is left beside the executable", async () => {
    const folder = join(tmp.path, "with-sourcemap");
    mkdirSync(folder, { recursive: true });
    const binary = join(folder, "stack");
    const built = await runCli([
      "build",
      join(import.meta.dir, "fixtures/stack-app.ts"),
      "--sourcemap",
      "-o",
      binary,
    ]);
    expect(built.code).toBe(0);
    expect(readdirSync(folder)).toEqual(["stack"]);
    const ran = Bun.spawnSync([binary], { stdout: "pipe", stderr: "pipe", env: testEnv() });
    expect(ran.stdout.toString()).toMatch(/^at whereAmI \(.*stack-app\.ts:4:\d+\)\n$/);
  }, 60_000);

  test("build flag mistakes exit 2; --help exits 0", async () => {
    const missing = await runCli(["build"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("webfw build needs the app file");
    const unknown = await runCli(["build", MINI_APP, "--compress"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown flag for webfw build: --compress");
    const notFound = await runCli(["build", "nope.ts"]);
    expect(notFound.code).toBe(2);
    expect(notFound.stderr).toContain("app file not found: nope.ts");
    const help = await runCli(["build", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: webfw build <app.ts>");
  });
});

describe("build command line", () => {
  test("the app comes first, extra entrypoints follow, options map to bun build flags", () => {
    const options = parseBuildArgs(
      [MINI_APP, "--outfile=out/app", "--minify", "--sourcemap", "--target", "bun-linux-x64"],
      REPO,
    );
    if (options === "help") throw new Error("unexpected help");
    expect(options.outfile).toBe(join(REPO, "out/app"));
    const command = buildCommand(options, "bun");
    expect(command.slice(0, 5)).toEqual(["bun", "build", "--compile", "--splitting", MINI_APP]);
    expect(command).toContain("--minify");
    expect(command).toContain("--sourcemap");
    expect(command.slice(-2)).toEqual(["--target", "bun-linux-x64"]);
    for (const extra of extraEntrypoints()) expect(command).toContain(extra);
  });

  test("bytecode is on unless --no-bytecode, as ES modules (apps use top-level await)", () => {
    const on = parseBuildArgs([MINI_APP], REPO);
    const off = parseBuildArgs([MINI_APP, "--no-bytecode"], REPO);
    const explicit = parseBuildArgs([MINI_APP, "--no-bytecode", "--bytecode"], REPO);
    if (on === "help" || off === "help" || explicit === "help") throw new Error("unexpected help");
    expect([on.bytecode, off.bytecode, explicit.bytecode]).toEqual([true, false, true]);
    const command = buildCommand(on, "bun");
    expect(command.slice(command.indexOf("--bytecode"), command.indexOf("--bytecode") + 3)).toEqual([
      "--bytecode",
      "--format",
      "esm",
    ]);
    expect(buildCommand(off, "bun")).not.toContain("--bytecode");
    expect(() => parseBuildArgs([MINI_APP, "--no-bytecode=yes"], REPO)).toThrow(
      "--no-bytecode takes no value",
    );
  });

  test("the worker entry is listed, and only existing entrypoints are passed", () => {
    expect(BUILD_EXTRA_ENTRYPOINTS).toContainEqual({
      path: "src/workers/worker-entry.ts",
      define: "process.env.WEBFW_WORKER_ENTRY",
    });
    for (const path of extraEntrypoints()) expect(existsSync(path)).toBe(true);
    expect(extraEntrypoints(tmp.path)).toEqual([]);
  });

  test("embeddedPath follows Bun's layout", () => {
    expect(
      embeddedPath(
        ["/p/app/app.ts", "/p/node_modules/webfw/src/workers/w.ts"],
        "/p/node_modules/webfw/src/workers/w.ts",
      ),
    ).toBe("/$bunfs/root/node_modules/webfw/src/workers/w.ts");
    expect(embeddedPath(["/tmp/x/app.ts", "/work/w.ts"], "/work/w.ts")).toBe("/$bunfs/root/work/w.ts");
    expect(embeddedPath(["/a/app.ts", "/a/w.ts"], "/a/w.ts", "bun-windows-x64")).toBe("B:/~BUN/root/w.ts");
  });

  test("the executable finds an extra entrypoint through its --define (as the worker pool does)", async () => {
    // A stand-in package root whose worker entry lives far from the app.
    const fakeRoot = join(tmp.path, "pkg");
    await Bun.write(
      join(fakeRoot, "src/workers/worker-entry.ts"),
      "self.onmessage = (e: MessageEvent) => postMessage('worker says ' + e.data);\n",
    );
    const appDir = join(tmp.path, "elsewhere/app");
    await Bun.write(
      join(appDir, "main.ts"),
      `const w = new Worker(process.env.WEBFW_WORKER_ENTRY ?? "not-defined");
w.onmessage = (e) => { console.log(e.data); w.terminate(); };
w.onerror = (e) => { console.log("error", e.message); process.exit(1); };
w.postMessage("hi");
`,
    );
    const options = parseBuildArgs([join(appDir, "main.ts"), "-o", join(tmp.path, "with-worker")]);
    if (options === "help") throw new Error("unexpected help");
    const command = buildCommand(options, process.execPath, fakeRoot);
    expect(command).toContain("--define");
    const build = Bun.spawnSync(command, { stdout: "pipe", stderr: "pipe" });
    expect(build.exitCode).toBe(0);
    const ran = Bun.spawnSync([join(tmp.path, "with-worker")], {
      stdout: "pipe",
      stderr: "pipe",
      env: testEnv(),
    });
    expect(ran.stdout.toString()).toBe("worker says hi\n");
  }, 60_000);

  test("--tsconfig: the build (and its discovery run) read that file instead of the app's", () => {
    const options = parseBuildArgs([MINI_APP, "--tsconfig", "tsconfig.json"], REPO);
    if (options === "help") throw new Error("unexpected help");
    expect(options.tsconfig).toBe(join(REPO, "tsconfig.json"));
    expect(buildCommand(options, "bun").slice(-2)).toEqual([
      "--tsconfig-override",
      join(REPO, "tsconfig.json"),
    ]);
    expect(() => parseBuildArgs([MINI_APP, "--tsconfig", "missing.json"], REPO)).toThrow(
      "--tsconfig: file not found",
    );
    expect(() => parseBuildArgs([MINI_APP, "--tsconfig"], REPO)).toThrow("--tsconfig needs a value");
  });

  test("default outfile is the app name; bad values throw FlagError", () => {
    const options = parseBuildArgs([MINI_APP], "/somewhere");
    expect(options !== "help" && options.outfile).toBe("/somewhere/mini-app");
    expect(() => parseBuildArgs([MINI_APP, "--target", "x86"])).toThrow(FlagError);
    expect(() => parseBuildArgs([MINI_APP, "--outfile"])).toThrow("--outfile needs a value");
    expect(() => parseBuildArgs([MINI_APP, MINI_APP])).toThrow("one app file");
    expect(parseBuildArgs(["-h"])).toBe("help");
  });
});
