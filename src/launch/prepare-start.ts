/**
 * What `app.start()` does with the command line before it listens: parse the
 * flags, run one-shot actions, compile native sources, and become a supervisor
 * (`--processes N`) or a dev reloader (`--dev`) instead of a server when asked. The modules of those
 * roles (supervisor, dev reloader) are imported only when asked, so that a plain
 * server never loads them (idle memory, docs/performance.md). So are the one-shot actions, the help
 * text and the certificate checks: a plain `bun app.ts` parses its flags and goes on to serve
 * (start-up, docs/performance.md, "Start-up and idle memory").
 */

import { isEmbedded } from "../embed/embedded.ts";
import { logger } from "../log/logger.ts";
import {
  CHILD_INDEX_ENV,
  DEV_RESTARTS_ENV,
  type Env,
  isDevChild,
  isSupervisedChild,
} from "../process/env.ts";
import { respawnArgv } from "../process/respawn.ts";
import { FlagError, parseFlags, type StartFlags, usage, wantsOneShotAction } from "./flags.ts";

export type ProcessRole = "server" | "supervised-child" | "dev-child";

export interface StartPlan {
  flags: StartFlags;
  role: ProcessRole;
  /** Listen with `reusePort: true` (a supervised child shares the port with its siblings). */
  reusePort: boolean;
  /** Open the app's URL once listening: `--open-browser`, and only once (first child, first dev start). */
  openBrowser: boolean;
}

export type StartDecision = { action: "serve"; plan: StartPlan } | { action: "exit"; code: number };

export interface PrepareStartOptions {
  /** Flags to parse (default `process.argv.slice(2)`). */
  argv?: readonly string[];
  env?: Env;
  /** `process.argv`, used to re-run this program for children (default `process.argv`). */
  processArgv?: readonly string[];
}

/** Prints a FlagError the way both entry points do: message, blank line, usage; the caller exits 2. */
export function reportFlagError(error: FlagError): void {
  process.stderr.write(`webfw: ${error.message}\n\n${usage()}\n`);
}

/**
 * Decides what this process does. On `{ action: "exit", code }` the caller exits
 * with that code (help, version, a flag error = 2, a finished supervisor, ...);
 * on `{ action: "serve", plan }` it listens, using `plan.flags` and `plan.reusePort`.
 */
export async function prepareStart(options: PrepareStartOptions = {}): Promise<StartDecision> {
  const env = options.env ?? process.env;
  const processArgv = options.processArgv ?? process.argv;
  const argv = options.argv ?? processArgv.slice(2);

  let flags: StartFlags;
  try {
    flags = parseFlags(argv, env);
  } catch (error) {
    if (error instanceof FlagError) {
      reportFlagError(error);
      return { action: "exit", code: 2 };
    }
    throw error;
  }
  logger.setLevel(flags.logLevel);
  logger.setFormat(flags.logFormat);

  if (wantsOneShotAction(flags)) {
    const code = await (await import("./actions.ts")).runOneShotAction(flags, env);
    if (code !== undefined) return { action: "exit", code };
  }

  const supervised = isSupervisedChild(env);
  const devChild = isDevChild(env);
  if (supervised || devChild) {
    // The launcher already compiled native sources; children only load them from the cache.
    return {
      action: "serve",
      plan: {
        flags,
        role: supervised ? "supervised-child" : "dev-child",
        reusePort: supervised,
        openBrowser:
          flags.openBrowser &&
          (supervised ? (env[CHILD_INDEX_ENV] ?? "0") === "0" : (env[DEV_RESTARTS_ENV] ?? "0") === "0"),
      },
    };
  }

  if (flags.compileNativePath !== undefined && !flags.dev) {
    const compiled = await (await import("./actions.ts")).runCompileNative(flags.compileNativePath);
    if (compiled !== 0) return { action: "exit", code: compiled };
  }

  // Children would each fail on an unreadable certificate, and the supervisor retry them: say it once, now.
  if ((flags.dev || flags.processes > 1) && flags.tlsCert !== undefined && flags.tlsKey !== undefined) {
    const { tlsFileProblem } = await import("../transport/tls.ts");
    const problem = tlsFileProblem(flags.tlsCert, "--tls-cert") ?? tlsFileProblem(flags.tlsKey, "--tls-key");
    if (problem !== null) {
      process.stderr.write(`webfw: ${problem}\n`);
      return { action: "exit", code: 2 };
    }
  }

  // Children re-run this program with the flags parsed here (which may come from `start({ argv })`).
  const childArgv = respawnArgv([processArgv[0] ?? process.execPath, processArgv[1] ?? "", ...argv]);
  if (flags.dev) {
    const entry = processArgv[1];
    if (entry === undefined || isEmbedded(entry)) {
      process.stderr.write(
        "webfw: --dev needs the app's source files; it does not work in a compiled binary\n",
      );
      return { action: "exit", code: 2 };
    }
    const { runDevReload } = await import("../process/dev-reload.ts");
    const exit = await runDevReload({
      argv: childArgv,
      env,
      watchDir: (await import("node:path")).dirname(entry),
      compileNativePath: flags.compileNativePath,
    });
    return { action: "exit", code: exit };
  }
  if (flags.processes > 1) {
    const { superviseProcesses } = await import("../process/supervisor.ts");
    const exit = await superviseProcesses({ count: flags.processes, argv: childArgv, env });
    return { action: "exit", code: exit };
  }
  return {
    action: "serve",
    plan: { flags, role: "server", reusePort: false, openBrowser: flags.openBrowser },
  };
}
