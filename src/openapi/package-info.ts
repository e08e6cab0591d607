import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

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

function readPackage(file: string): PackageInfo {
  try {
    const data: unknown = JSON.parse(readFileSync(file, "utf8"));
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
