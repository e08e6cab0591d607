/**
 * `--dev`: runs the app as a child process and restarts it when a source file
 * under the app's folder changes (debounced), recompiling native sources first
 * when `--compile-native-path` is given.
 */
import { type FSWatcher, statSync, watch } from "node:fs";
import { extname, sep } from "node:path";
import type { Subprocess } from "bun";
import { logger as defaultLogger, type Logger } from "../log/logger.ts";
import { compileNativePath, describeReport } from "../native/compile.ts";
import { cleanEnv, DEV_CHILD_ENV, DEV_RESTARTS_ENV, type Env, REPEAT_SIGNAL_WINDOW_MS } from "./env.ts";

/** Changes to these files restart the app. Data files (SQLite databases, logs, uploads) are left out on purpose. */
export const DEV_WATCH_EXTENSIONS: readonly string[] = [
  ".ts",
  ".tsx",
  ".mts",
  ".cts",
  ".js",
  ".jsx",
  ".mjs",
  ".cjs",
  ".json",
  ".toml",
  ".env",
  ".c",
  ".h",
  ".rs",
  ".zig",
];

/** Folders never watched: dependencies, VCS data, caches (the native cache is written by the reloader itself). */
export const DEV_IGNORED_DIRS: readonly string[] = ["node_modules", "dist", "build", "coverage", "target"];

export interface DevReloadOptions {
  /** Arguments after `process.execPath` that run the app (see `respawnArgv()`). */
  argv: string[];
  env: Env;
  /** The folder to watch, recursively (the app's folder). */
  watchDir: string;
  /** Recompiled before each restart (and once at the start). */
  compileNativePath?: string;
  /** Quiet time after the last change before restarting (default 100 ms). */
  debounceMs?: number;
  /** A child still running this long after SIGTERM is killed (default 3 s). */
  stopTimeoutMs?: number;
  extensions?: readonly string[];
  execPath?: string;
  logger?: Logger;
}

/** True when a changed path (relative to the watched folder) should restart the app. */
export function isWatchedChange(
  relativePath: string,
  extensions: readonly string[] = DEV_WATCH_EXTENSIONS,
): boolean {
  const parts = relativePath.split(/[\\/]/);
  const file = parts[parts.length - 1] ?? "";
  for (const dir of parts.slice(0, -1)) {
    if (dir.startsWith(".") || DEV_IGNORED_DIRS.includes(dir)) return false;
  }
  // `.env` has no extension by Node's rules; editors' temp files (`x.ts~`, `.x.ts.swp`) fail the test.
  if (file === ".env" || file.startsWith(".env.")) return extensions.includes(".env");
  if (file.startsWith(".")) return false;
  return extensions.includes(extname(file).toLowerCase());
}

/** Runs until SIGINT/SIGTERM; resolves 0 after stopping the app. */
export function runDevReload(options: DevReloadOptions): Promise<number> {
  const {
    argv,
    env,
    watchDir,
    compileNativePath: nativePath,
    debounceMs = 100,
    stopTimeoutMs = 3_000,
    extensions = DEV_WATCH_EXTENSIONS,
    execPath = process.execPath,
    logger: log = defaultLogger,
  } = options;

  try {
    if (!statSync(watchDir).isDirectory()) throw new Error("not a directory");
  } catch {
    log.error("--dev needs the app's source folder to watch (it does not work from a compiled binary)", {
      dir: watchDir,
    });
    return Promise.resolve(1);
  }

  let child: Subprocess | undefined;
  let restarts = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let busy = false;
  let again = false;
  let stopping = false;
  let stoppedAt = 0;
  let changed = new Set<string>();
  let resolveDone: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    resolveDone = resolve;
  });

  const compile = (): boolean => {
    if (!nativePath) return true;
    const report = compileNativePath(nativePath);
    for (const line of describeReport(report)) (report.failed.length ? log.error : log.info)(line);
    return report.failed.length === 0;
  };

  const start = (): void => {
    const proc = Bun.spawn([execPath, ...argv], {
      env: cleanEnv(env, { [DEV_CHILD_ENV]: "1", [DEV_RESTARTS_ENV]: String(restarts) }),
      stdio: ["inherit", "inherit", "inherit"],
    });
    child = proc;
    void proc.exited.then((code) => {
      if (child !== proc) return;
      child = undefined;
      if (!stopping) log.warning("app exited; waiting for a file change to restart it", { code });
    });
  };

  const stopChild = async (): Promise<void> => {
    const proc = child;
    if (!proc) return;
    child = undefined;
    proc.kill("SIGTERM");
    const timeout = setTimeout(() => proc.kill("SIGKILL"), stopTimeoutMs);
    await proc.exited;
    clearTimeout(timeout);
  };

  const restart = async (): Promise<void> => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        const files = [...changed].slice(0, 5).join(",");
        changed = new Set();
        if (!compile()) {
          log.error("native compile failed; keeping the running app until the next change");
          continue;
        }
        log.info("change detected; restarting the app", { files });
        await stopChild();
        if (stopping) return;
        restarts++;
        start();
      } while (again && !stopping);
    } finally {
      busy = false;
    }
  };

  let watcher: FSWatcher;
  try {
    watcher = watch(watchDir, { recursive: true }, (_event, filename) => {
      if (stopping || filename === null) return;
      const relative = filename.toString().split(sep).join("/");
      if (!isWatchedChange(relative, extensions)) return;
      changed.add(relative);
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = undefined;
        void restart();
      }, debounceMs);
    });
  } catch (error) {
    log.error("cannot watch the app's folder", { dir: watchDir, error });
    return Promise.resolve(1);
  }

  const onSignal = async (signal: NodeJS.Signals): Promise<void> => {
    if (stopping) {
      if (performance.now() - stoppedAt >= REPEAT_SIGNAL_WINDOW_MS) child?.kill("SIGKILL");
      return;
    }
    stopping = true;
    stoppedAt = performance.now();
    log.debug("dev reloader stopping", { signal });
    if (timer) clearTimeout(timer);
    watcher.close();
    await stopChild();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    resolveDone(0);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  compile();
  log.info("dev mode: watching for changes", { dir: watchDir });
  start();
  return done;
}
