import { nodePath } from "../builtins.ts";
import { isEmbedded } from "./embedded.ts";

/**
 * `appDir(import.meta.dir)`: the folder on disk to keep an app's data in (docs/deployment.md,
 * "Binaries"). From source it is the given folder itself. Inside a binary made by `webfw build`,
 * `import.meta.dir` is the executable's embedded, read-only root (`/$bunfs/root/…`), and a path
 * joined to it is created on the real disk under `/$bunfs/` (Bun only intercepts reads), so
 * an app that opened `join(import.meta.dir, "data/app.db")` started with an empty database.
 * There it is the executable's folder, plus the module's place below the app's folder, so the
 * layout next to the binary mirrors the source tree.
 */
export function appDir(moduleDir: string): string {
  if (!isEmbedded(moduleDir)) return moduleDir;
  const path = nodePath();
  const normal = moduleDir.replaceAll("\\", "/");
  const below = normal.replace(/^(\/\$bunfs\/root|[A-Z]:\/~BUN\/root)\/?/, "");
  return path.join(path.dirname(process.execPath), ...below.split("/").filter(Boolean));
}
