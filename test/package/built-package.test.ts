/**
 * The package as a user gets it (docs/packaging.md): `npm pack` (its `prepare` builds dist/ with
 * scripts/build.ts), the tarball unpacked into a fresh project's node_modules/webfw the way npm
 * lays it out, with the `webfw` command linked in node_modules/.bin and webfw's dependencies
 * linked from this repository's node_modules (no network). The project's app imports "webfw"
 * (the built dist/, not src/), and is run every way a user runs it: `webfw app.ts`, with
 * `--workers 2` (an offloaded route, so the worker pool finds its built entry), `--processes 2`,
 * `--dev` (route sources recorded: frames inside the built package are not the app's), and
 * `webfw build` executables (the worker entry embedded from dist/; `router: "ffi"`, whose code is a
 * lazily required chunk, dist/lazy-chunks.json). The Scalar page's asset is found from the built
 * package too.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { collect, freePort, REPO, testEnv, tryGet, waitFor } from "../cli/helpers.ts";
import { runCommand } from "../helpers/run-command.ts";

const tmp = mkdtempSync(join(tmpdir(), "webfw-built-"));
const project = join(tmp, "project");
const WEBFW = join(project, "node_modules/.bin/webfw");

/**
 * The user's app: "webfw" from node_modules, one plain route, one offloaded; with `SCALAR=1` the
 * Scalar page (not in the executable: Scalar's bundle is read from node_modules, docs/openapi.md).
 */
const APP = `import { Webfw } from "webfw";

export const app = new Webfw(import.meta.path, process.env.SCALAR ? { openapi: { docsUi: "scalar" } } : {});
app.get("/", () => "hello from the package");
app.get("/thread", () => (Bun.isMainThread ? "main" : "worker"), { offload: true });
app.get("/pid", () => String(process.pid));
if (import.meta.main) await app.start();
`;

/** Links `name` (a package of this repository's node_modules) into the project's node_modules. */
function link(name: string): void {
  const target = join(project, "node_modules", name);
  if (existsSync(target)) return;
  mkdirSync(dirname(target), { recursive: true });
  symlinkSync(join(REPO, "node_modules", name), target, "dir");
}

beforeAll(async () => {
  const packed = await runCommand(["npm", "pack", "--pack-destination", tmp, "--json"], {
    cwd: REPO,
    env: testEnv({ PATH: `${dirname(process.execPath)}:${process.env.PATH}` }),
  });
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.stdout}${packed.stderr}`);
  const tarball = readdirSync(tmp).find((f) => f.endsWith(".tgz"));
  if (tarball === undefined) throw new Error(`npm pack wrote no tarball:\n${packed.stdout}`);
  mkdirSync(join(project, "node_modules/.bin"), { recursive: true });
  const untar = await runCommand(["tar", "xzf", join(tmp, tarball), "-C", tmp]);
  if (untar.code !== 0) throw new Error(`tar failed:\n${untar.stderr}`);
  const moved = await runCommand(["mv", join(tmp, "package"), join(project, "node_modules/webfw")]);
  if (moved.code !== 0) throw new Error(moved.stderr);
  // What `npm install webfw` brings besides: its dependencies, and its bin linked and executable.
  const pkg = JSON.parse(readFileSync(join(project, "node_modules/webfw/package.json"), "utf8")) as {
    dependencies: Record<string, string>;
    optionalDependencies?: Record<string, string>;
    bin: Record<string, string>;
  };
  for (const name of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) link(name);
  const bin = join(project, "node_modules/webfw", pkg.bin.webfw as string);
  chmodSync(bin, 0o755);
  symlinkSync(bin, WEBFW);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "consumer", type: "module", private: true, dependencies: { webfw: "0.1.0" } }),
  );
  writeFileSync(join(project, "app.ts"), APP);
  writeFileSync(join(project, "names.ts"), NAMES);
  writeFileSync(join(project, "ffi.ts"), FFI_APP);
}, 240_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Env of the user's shell: `bun` on the PATH (the bin's `#!/usr/bin/env bun`). */
function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  return testEnv({ PATH: `${dirname(process.execPath)}:${process.env.PATH}`, ...extra });
}

/** Starts `command` in the project, waits for `GET /` on `port`, runs `check`, stops it. */
async function serving(
  command: string[],
  port: number,
  check: (base: string) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const proc = Bun.spawn(command, { cwd: project, env: userEnv(env), stdout: "pipe", stderr: "pipe" });
  const err = collect(proc.stderr);
  const out = collect(proc.stdout);
  const base = `http://127.0.0.1:${port}`;
  try {
    const first = await waitFor(
      async () => (proc.exitCode === null ? await tryGet(`${base}/`) : Promise.reject(new Error("exited"))),
      20_000,
      `${command.join(" ")} to answer`,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\nstdout: ${out.text()}\nstderr: ${err.text()}`);
    });
    expect(first.status).toBe(200);
    expect(await first.text()).toBe("hello from the package");
    await check(base);
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}

/** Prints, for every subpath, the `.name` of each exported class and function, as JSON. */
const NAMES = `const out = {};
for (const subpath of JSON.parse(process.argv[2])) {
  const module = await import(subpath);
  out[subpath] = Object.fromEntries(
    Object.entries(module).flatMap(([key, value]) => (typeof value === "function" ? [[key, value.name]] : [])),
  );
}
console.log(JSON.stringify(out));
`;

/** The C router (bun:ffi; a system compiler or Bun's TinyCC) from the package's native/ folder. */
const FFI_APP = `import { Webfw } from "webfw";
const app = new Webfw(import.meta.path, { router: "ffi" });
app.get("/id/:id", ({ pathParams }) => \`id \${pathParams.id}\`);
const handle = await app.start({ port: 0 });
console.log(await (await fetch(\`http://127.0.0.1:\${handle.port}/id/42\`)).text());
await handle.stop();
`;

describe("the packed package", () => {
  test("ships the built code and its declarations, not the sources", () => {
    const installed = join(project, "node_modules/webfw");
    expect(existsSync(join(installed, "dist/src/index.js"))).toBe(true);
    expect(existsSync(join(installed, "dist/cli/webfw.js"))).toBe(true);
    expect(existsSync(join(installed, "dist/src/workers/worker-entry.js"))).toBe(true);
    expect(existsSync(join(installed, "dist/types/index.d.ts"))).toBe(true);
    expect(existsSync(join(installed, "src"))).toBe(false);
  });

  test("exported classes and functions keep their source names (splitting renames them)", async () => {
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
      exports: Record<string, string | { default?: string }>;
    };
    const subpaths = Object.entries(pkg.exports)
      .filter(([, target]) => typeof target === "object" && target.default?.endsWith(".js"))
      .map(([key]) => `webfw${key.slice(1)}`);
    const { code, stdout, stderr } = await runCommand(
      [process.execPath, "names.ts", JSON.stringify(subpaths)],
      { cwd: project, env: userEnv() },
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const built = JSON.parse(stdout) as Record<string, Record<string, string>>;
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      if (typeof target !== "object" || !target.default?.endsWith(".js")) continue;
      const source = join(REPO, target.default.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts"));
      const expected = Object.fromEntries(
        Object.entries((await import(source)) as Record<string, unknown>).flatMap(([key, value]) =>
          typeof value === "function" ? [[key, value.name]] : [],
        ),
      );
      expect(built[`webfw${subpath.slice(1)}`]).toEqual(expected);
    }
  });

  test('router: "ffi" compiles the C router from the shipped native/ sources', async () => {
    const { code, stdout, stderr } = await runCommand([process.execPath, "ffi.ts"], {
      cwd: project,
      env: userEnv(),
    });
    expect(stderr).not.toContain("error");
    expect(stdout.trim().split("\n").at(-1)).toBe("id 42");
    expect(code).toBe(0);
  }, 60_000);

  test("webfw --version answers from the built command", async () => {
    const { code, stdout } = await runCommand([WEBFW, "--version"], { cwd: project, env: userEnv() });
    expect(code).toBe(0);
    const { version } = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };
    expect(stdout).toContain(version);
  });

  test("webfw app.ts serves from dist/; the Scalar page's script comes from the installed package", async () => {
    const port = freePort();
    await serving(
      [WEBFW, "app.ts", "--port", String(port)],
      port,
      async (base) => {
        const script = await fetch(`${base}/docs/assets/scalar-standalone.js`);
        expect(script.status).toBe(200);
        expect((await script.text()).length).toBeGreaterThan(100_000);
      },
      { SCALAR: "1" },
    );
  }, 60_000);

  test("--workers 2: an offloaded route runs in a Worker loading the built entry", async () => {
    const port = freePort();
    await serving([WEBFW, "app.ts", "--port", String(port), "--workers", "2"], port, async (base) => {
      const res = await fetch(`${base}/thread`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("worker");
    });
  }, 60_000);

  test("--processes 2: both processes answer", async () => {
    const port = freePort();
    await serving([WEBFW, "app.ts", "--port", String(port), "--processes", "2"], port, async (base) => {
      const pids = new Set<string>();
      await waitFor(
        async () => {
          pids.add(await (await fetch(`${base}/pid`, { headers: { connection: "close" } })).text());
          return pids.size >= 2;
        },
        15_000,
        "answers from two processes",
      );
      expect(pids.size).toBe(2);
    });
  }, 60_000);

  test("--dev: the dashboard records where each route was registered (the app's file, not dist/)", async () => {
    const port = freePort();
    await serving([WEBFW, "app.ts", "--port", String(port), "--dev"], port, async (base) => {
      const res = await fetch(`${base}/_webfw/api/routes`);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toContain("app.ts:4");
      expect(text).not.toContain("node_modules/webfw");
    });
  }, 60_000);

  test("webfw build: the executable serves, and runs an offloaded route in its Workers", async () => {
    const binary = join(tmp, "app-binary");
    const built = await runCommand([WEBFW, "build", "app.ts", "--outfile", binary], {
      cwd: project,
      env: userEnv(),
    });
    expect(`${built.stdout}${built.stderr}`).toContain("wrote");
    expect(built.code).toBe(0);
    const port = freePort();
    await serving([binary, "--port", String(port), "--workers", "2"], port, async (base) => {
      const res = await fetch(`${base}/thread`);
      expect(await res.text()).toBe("worker");
    });
  }, 120_000);

  test('webfw build: router: "ffi" in the executable (a lazily required chunk, and the embedded C source)', async () => {
    const binary = join(tmp, "ffi-binary");
    const built = await runCommand([WEBFW, "build", "ffi.ts", "--outfile", binary], {
      cwd: project,
      env: userEnv(),
    });
    expect(`${built.stdout}${built.stderr}`).toContain("wrote");
    expect(built.code).toBe(0);
    // Run from elsewhere: nothing may come from the project's node_modules on disk.
    const { code, stdout, stderr } = await runCommand([binary], { cwd: tmpdir(), env: userEnv() });
    expect(stderr).not.toContain("Cannot find module");
    expect(stdout.trim().split("\n").at(-1)).toBe("id 42");
    expect(code).toBe(0);
  }, 120_000);
});
