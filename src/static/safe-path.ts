import { realpath } from "node:fs/promises";
import { sep } from "node:path";

/**
 * Splits the part of a URL path below a route into decoded segments, or
 * returns `null` when a segment could leave the directory or name something
 * it must not: `.`/`..` (also as `%2e%2e`), an encoded `/` (`%2f`),
 * backslashes, NUL bytes, malformed percent-encoding, and dot files unless
 * allowed. Empty segments (`a//b`) are dropped, like nginx's merge_slashes.
 */
export function safeSegments(rawRest: string, allowDotFiles: boolean): string[] | null {
  const segments: string[] = [];
  for (const raw of rawRest.split("/")) {
    if (raw === "") continue;
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (segment === "." || segment === "..") return null;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a NUL byte must never reach the file system
    if (/[/\\\u0000]/.test(segment)) return null;
    if (!allowDotFiles && segment.startsWith(".")) return null;
    segments.push(segment);
  }
  return segments;
}

/**
 * The real path of `target` when it exists and lies inside `realRoot` (itself
 * a real path); `null` otherwise. With `followLinks`, a symlink may point
 * anywhere: the lexical path was already confined by `safeSegments`.
 */
export async function realPathInside(
  target: string,
  realRoot: string,
  followLinks: boolean,
): Promise<string | null> {
  let real: string;
  try {
    real = await realpath(target);
  } catch {
    return null;
  }
  if (followLinks || isInside(real, realRoot)) return real;
  return null;
}

export function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}
