/** Shared helpers for the command-line tests: run the CLI, find a free port, wait for a condition. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runCommand } from "../helpers/run-command.ts";

export const REPO = resolve(import.meta.dir, "../..");
export const CLI = join(REPO, "cli/webfw.ts");
export const MINI_APP = join(import.meta.dir, "fixtures/mini-app.ts");

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

type Env = Record<string, string | undefined>;

/** Env for children: no inherited WEBFW_* markers, no colours. */
export function testEnv(extra: Env = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("WEBFW_")) env[key] = value;
  }
  env.NO_COLOR = "1";
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/** Runs `bun <script> ...args` to completion. */
export async function run(
  script: string,
  args: string[],
  options: { cwd?: string; env?: Env; stdin?: string } = {},
): Promise<RunResult> {
  return runCommand([process.execPath, script, ...args], {
    cwd: options.cwd ?? REPO,
    env: testEnv(options.env),
    stdin: options.stdin,
  });
}

export function runCli(args: string[], options: { cwd?: string; env?: Env; stdin?: string } = {}) {
  return run(CLI, args, options);
}

/** A port that was free a moment ago (for tests that need a fixed port shared by several processes). */
export function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = server.port;
  server.stop(true);
  if (port === undefined) throw new Error("no port");
  return port;
}

export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(25);
  }
}

/** GET that never throws: undefined while the server is not up. */
export async function tryGet(url: string, init: RequestInit = {}): Promise<Response | undefined> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(2000) });
  } catch {
    return undefined;
  }
}

export function tempDir(prefix: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), `webfw-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Collects a stream's text as it arrives, so a test can wait for a line while the process runs. */
export function collect(stream: ReadableStream<Uint8Array>): { text: () => string; done: Promise<void> } {
  let text = "";
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  const done = (async () => {
    for (;;) {
      const { done: finished, value } = await reader.read();
      if (finished) return;
      text += decoder.decode(value, { stream: true });
    }
  })();
  return { text: () => text, done };
}

/** Whether a process with this pid still exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
