import { nodeFs } from "../builtins.ts";
import type { Logger } from "../log/logger.ts";
import { isEmbedded } from "./embedded.ts";

/**
 * Writes under a compiled binary's embedded root (docs/deployment.md, "Binaries").
 *
 * Bun serves reads below `/$bunfs/` from the executable, but `mkdir`, `open` for writing and
 * SQLite go to the real disk, at a literal `/$bunfs/…` folder: the data silently lives there,
 * not next to the binary. webfw refuses its own writes there (`refuseEmbeddedWrite`) and, at
 * start, warns when that folder exists on the real disk (`warnEmbeddedWrites`).
 */

/** Throws for a path webfw would write inside a binary's embedded root (upload targets). */
export function refuseEmbeddedWrite(path: string, what: string): void {
  if (!isEmbedded(path)) return;
  throw new Error(
    `${what}: refusing to write ${path}: it is inside the compiled binary's read-only embedded root; ` +
      "build the path from appDir(import.meta.dir) (the executable's folder) or an absolute path (docs/deployment.md, Binaries)",
  );
}

// `//$bunfs` is the same folder to the kernel, but Bun's embedded file system only answers `/$bunfs/`.
const REAL_DISK_ROOT = "//$bunfs/root";

/** What was written on the real disk below `/$bunfs/root` (empty when nothing, or not Linux/macOS). */
export function embeddedRootWrites(): string[] {
  try {
    return nodeFs()
      .readdirSync(REAL_DISK_ROOT)
      .map((name) => `/$bunfs/root/${name}`);
  } catch {
    return [];
  }
}

/**
 * Inside a compiled binary: logs a warning naming what the app (or an earlier run) wrote on the
 * real disk under the embedded root. Called once the app has started, when a module-level
 * `new Database(join(import.meta.dir, …))` has already run.
 */
export function warnEmbeddedWrites(main: string, log: Logger): void {
  if (!isEmbedded(main)) return;
  const written = embeddedRootWrites();
  if (written.length === 0) return;
  log.warning(
    "found files written under the binary's read-only embedded root; they are on the real disk at /$bunfs/root, not next to the executable: build data paths from appDir(import.meta.dir) (docs/deployment.md, Binaries)",
    { paths: written.join(",") },
  );
}
