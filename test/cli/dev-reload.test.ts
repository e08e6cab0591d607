/** `--dev`: a tiny app in a temp folder; edit it and see the new response. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isWatchedChange } from "../../src/process/dev-reload.ts";
import { collect, freePort, tempDir, testEnv, tryGet, waitFor } from "./helpers.ts";

const MINI_SERVER = join(import.meta.dir, "fixtures/mini-server.ts");
const LOAD_NATIVE = join(import.meta.dir, "../../src/native/index.ts");

let tmp: { path: string; remove: () => void };
beforeAll(() => {
  tmp = tempDir("dev");
});
afterAll(() => tmp.remove());

function appSource(message: string): string {
  return `import { startMini } from ${JSON.stringify(MINI_SERVER)};\nawait startMini(() => ${JSON.stringify(message)});\n`;
}

async function text(port: number, path = "/"): Promise<string | undefined> {
  const res = await tryGet(`http://127.0.0.1:${port}${path}`);
  return res?.ok ? res.text() : undefined;
}

async function pid(port: number): Promise<number | undefined> {
  const res = await tryGet(`http://127.0.0.1:${port}/info`);
  return res?.ok ? ((await res.json()) as { pid: number }).pid : undefined;
}

function launch(dir: string, args: string[]) {
  const proc = Bun.spawn([process.execPath, join(dir, "app.ts"), ...args], {
    cwd: dir,
    env: testEnv(),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { proc, err: collect(proc.stderr) };
}

describe("--dev", () => {
  test("restarts the app when a source file changes, and only then", async () => {
    const dir = join(tmp.path, "edit");
    mkdirSync(join(dir, "lib"), { recursive: true });
    writeFileSync(join(dir, "app.ts"), appSource("version one"));
    const port = freePort();
    const { proc, err } = launch(dir, ["--dev", "--port", String(port)]);
    try {
      expect(await waitFor(() => text(port), 10_000, "the first start")).toBe("version one");
      const info = (await (await fetch(`http://127.0.0.1:${port}/info`)).json()) as Record<string, unknown>;
      expect(info.role).toBe("dev-child");
      const firstPid = info.pid as number;

      writeFileSync(join(dir, "app.ts"), appSource("version two"));
      await waitFor(async () => (await text(port)) === "version two", 10_000, "the edited response");
      expect(err.text()).toContain('msg="change detected; restarting the app" files=app.ts');
      const secondPid = await waitFor(() => pid(port), 5_000, "the new pid");
      expect(secondPid).not.toBe(firstPid);

      // Data files, dependencies and hidden folders do not restart it.
      writeFileSync(join(dir, "app.sqlite"), "data");
      mkdirSync(join(dir, "node_modules/x"), { recursive: true });
      writeFileSync(join(dir, "node_modules/x/index.ts"), "export {};");
      mkdirSync(join(dir, ".cache"), { recursive: true });
      writeFileSync(join(dir, ".cache/y.ts"), "export {};");
      await Bun.sleep(600);
      expect(await pid(port)).toBe(secondPid);

      // A file in a subfolder does.
      writeFileSync(join(dir, "lib/helper.ts"), "export const x = 1;\n");
      await waitFor(
        async () => {
          const now = await pid(port);
          return now !== undefined && now !== secondPid;
        },
        10_000,
        "a restart after lib/helper.ts changed",
      );
    } finally {
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
    }
    expect(await tryGet(`http://127.0.0.1:${port}/`)).toBeUndefined();
  });

  test("a crashing edit waits for the next change", async () => {
    const dir = join(tmp.path, "crash");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "app.ts"), appSource("fine"));
    const port = freePort();
    const { proc, err } = launch(dir, ["--dev", "--port", String(port)]);
    try {
      expect(await waitFor(() => text(port), 10_000, "the first start")).toBe("fine");
      writeFileSync(join(dir, "app.ts"), "throw new Error('syntax is fine, startup is not');\n");
      await waitFor(() => err.text().includes("waiting for a file change"), 10_000, "the crash notice");
      writeFileSync(join(dir, "app.ts"), appSource("fixed"));
      expect(await waitFor(async () => (await text(port)) === "fixed", 10_000, "the fix")).toBe(true);
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  });

  test("with --compile-native-path, native sources are recompiled before the restart", async () => {
    const dir = join(tmp.path, "native");
    mkdirSync(join(dir, "native"), { recursive: true });
    writeFileSync(join(dir, "native/calc.c"), "int calc(int a, int b) { return a + b; }\n");
    writeFileSync(
      join(dir, "app.ts"),
      `import { loadNative } from ${JSON.stringify(LOAD_NATIVE)};
import { startMini } from ${JSON.stringify(MINI_SERVER)};
const { calc } = loadNative(import.meta.dir + "/native/calc.c", { calc: { args: ["i32", "i32"], returns: "i32" } });
await startMini(() => String(calc(6, 7)));
`,
    );
    const port = freePort();
    const { proc, err } = launch(dir, ["--dev", "--port", String(port), "--compile-native-path", "native"]);
    try {
      expect(await waitFor(() => text(port), 15_000, "the first start")).toBe("13");
      writeFileSync(join(dir, "native/calc.c"), "int calc(int a, int b) { return a * b; }\n");
      await waitFor(async () => (await text(port)) === "42", 15_000, "the recompiled function");
      expect(err.text()).toMatch(/msg="compiled: .*calc\.c/);

      // A broken edit keeps the running app and says why.
      const before = await pid(port);
      writeFileSync(join(dir, "native/calc.c"), "int calc(int a, int b) { return a * ; }\n");
      await waitFor(() => err.text().includes("native compile failed"), 15_000, "the compile error");
      expect(await pid(port)).toBe(before);
      expect(await text(port)).toBe("42");
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  });
});

describe("isWatchedChange", () => {
  test("source files count; data, dependencies, hidden folders and editor files do not", () => {
    for (const yes of [
      "app.ts",
      "src/routes/x.tsx",
      "native/add.c",
      "lib.rs",
      "config.json",
      ".env",
      ".env.local",
    ]) {
      expect(isWatchedChange(yes)).toBe(true);
    }
    for (const no of [
      "app.sqlite",
      "app.sqlite-wal",
      "node_modules/a/index.ts",
      ".git/HEAD",
      ".webfw-cache/add-1.so",
      "dist/app.js",
      ".app.ts.swp",
      "app.ts~",
      "public/logo.png",
    ]) {
      expect(isWatchedChange(no)).toBe(false);
    }
  });
});
