import { nodeFs, nodePath } from "../builtins.ts";

export interface PackageInfo {
  name?: string;
  version?: string;
}

/**
 * `name` and `version` of the package.json nearest above the app's main file,
 * the defaults for `info.title` and `info.version`. Inside a compiled binary
 * there is none (the main file lives in Bun's embedded file system): the
 * caller falls back, and the docs say to set `title`/`version` explicitly.
 */
export function appPackageInfo(mainFile: string): PackageInfo {
  const found = preloaded.get(mainFile);
  if (found !== undefined) return found;
  const { existsSync } = nodeFs();
  const { dirname, join } = nodePath();
  let dir = dirname(mainFile);
  for (let depth = 0; depth < 64; depth++) {
    const candidate = join(dir, "package.json");
    if (existsSync(candidate)) return readPackage(candidate);
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return {};
}

const preloaded = new Map<string, PackageInfo>();

/**
 * The same lookup with `Bun.file`, done by the OpenAPI mount before a build so that the document
 * is generated without loading `node:fs` and `node:path` (idle memory, docs/performance.md):
 * `appPackageInfo` then answers from what this found.
 */
export async function preloadAppPackageInfo(mainFile: string): Promise<void> {
  preloaded.delete(mainFile);
  let dir = parentDir(mainFile);
  let info: PackageInfo = {};
  for (let depth = 0; depth < 64; depth++) {
    const file = Bun.file(/[\\/]$/.test(dir) ? `${dir}package.json` : `${dir}/package.json`);
    if (await file.exists()) {
      info = packageFields(await file.text().catch(() => ""));
      break;
    }
    const parent = parentDir(dir);
    if (parent === dir) break;
    dir = parent;
  }
  preloaded.set(mainFile, info);
}

/** `dirname` for the lookup above: "/" and "C:\\" are their own parents. */
function parentDir(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, "");
  const cut = Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\"));
  if (cut < 0) return path;
  const parent = trimmed.slice(0, cut);
  if (parent === "") return "/";
  return /^[A-Za-z]:$/.test(parent) ? `${parent}\\` : parent;
}

function readPackage(file: string): PackageInfo {
  let text: string;
  try {
    text = nodeFs().readFileSync(file, "utf8");
  } catch {
    return {};
  }
  return packageFields(text);
}

function packageFields(text: string): PackageInfo {
  try {
    const data: unknown = JSON.parse(text);
    if (typeof data !== "object" || data === null) return {};
    const { name, version } = data as Record<string, unknown>;
    return {
      name: typeof name === "string" && name !== "" ? name : undefined,
      version: typeof version === "string" && version !== "" ? version : undefined,
    };
  } catch {
    // An unreadable package.json only costs the defaults.
    return {};
  }
}
