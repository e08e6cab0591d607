/**
 * `realpath` that also works inside a compiled binary: Bun's embedded file system
 * (`/$bunfs/…`) answers `stat`, `readdir` and reads, but not `realpath`/`lstat`.
 * It holds no symbolic links, so an embedded path that exists is its own real path.
 */
import { existsSync, realpathSync } from "node:fs";
import { realpath as realpathAsync } from "node:fs/promises";
import { normalize } from "node:path";

const EMBEDDED = /^(\/\$bunfs\/|[A-Z]:[\\/]~BUN[\\/])/;

function embedded(path: string): string | null {
  if (!EMBEDDED.test(path)) return null;
  const clean = normalize(path);
  if (!existsSync(clean))
    throw Object.assign(new Error(`ENOENT: no such file or directory, realpath '${path}'`), {
      code: "ENOENT",
    });
  return clean;
}

export function realPathSync(path: string): string {
  return embedded(path) ?? realpathSync(path);
}

export async function realPath(path: string): Promise<string> {
  return embedded(path) ?? (await realpathAsync(path));
}
