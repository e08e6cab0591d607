/** How to start this same program again, for supervised and dev-reloaded children. */
import { isEmbedded } from "../embed/embedded.ts";

/**
 * The arguments that follow `process.execPath` to re-run this program with the
 * same flags. Under `bun app.ts` that is `[...bunFlags, "/abs/app.ts", ...flags]`;
 * inside a `bun build --compile` binary, `process.execPath` is the binary itself and
 * `argv[1]` is its embedded entry, so only the flags follow.
 */
export function respawnArgv(
  argv: readonly string[] = process.argv,
  execArgv: readonly string[] = process.execArgv,
): string[] {
  const entry = argv[1];
  if (entry === undefined || isEmbedded(entry)) return argv.slice(2);
  return [...execArgv, entry, ...argv.slice(2)];
}
