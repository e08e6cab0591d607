import { nodeFs, nodeFsPromises, nodePath } from "../builtins.ts";

/**
 * `realpath` that also works inside a compiled binary: Bun's embedded file system
 * (`/$bunfs/…`) answers `stat`, `readdir` and reads, but not `realpath`/`lstat`.
 * It holds no symbolic links, so an embedded path that exists is its own real path.
 */

const EMBEDDED = /^(\/\$bunfs\/|[A-Z]:[\\/]~BUN[\\/])/;

function embedded(path: string): string | null {
  if (!EMBEDDED.test(path)) return null;
  const clean = nodePath().normalize(path);
  if (!nodeFs().existsSync(clean))
    throw Object.assign(new Error(`ENOENT: no such file or directory, realpath '${path}'`), {
      code: "ENOENT",
    });
  return clean;
}

export function realPathSync(path: string): string {
  return embedded(path) ?? nodeFs().realpathSync(path);
}

export async function realPath(path: string): Promise<string> {
  return embedded(path) ?? (await nodeFsPromises().realpath(path));
}
