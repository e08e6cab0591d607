import { nodePath } from "../builtins.ts";
import { realPath as realpath } from "../embed/real-path.ts";

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
 * The real path of `target` when it may be served from `realRoot` (itself a
 * real path); `null` otherwise. Judged by the RESOLVED path, not the name in
 * the URL (issue #13, finding 6): a symlink `public/config -> ../.env` or
 * `public/x -> .git/config` is refused like `.env` itself, since every
 * segment of the real path below the root must be visible. A real path
 * outside the root is refused unless `followLinks`; then no segment of it may
 * start with a dot (a link to `~/.ssh/…` stays hidden) unless `allowDotFiles`.
 */
export async function realPathInside(
  target: string,
  realRoot: string,
  followLinks: boolean,
  allowDotFiles: boolean,
): Promise<string | null> {
  let real: string;
  try {
    real = await realpath(target);
  } catch {
    return null;
  }
  if (isInside(real, realRoot)) {
    return allowDotFiles || !hasDotSegment(nodePath().relative(realRoot, real)) ? real : null;
  }
  if (!followLinks) return null;
  return allowDotFiles || !hasDotSegment(real) ? real : null;
}

/** True when a segment of `path` starts with `.` (`.env`, `a/.git/config`). */
export function hasDotSegment(path: string): boolean {
  return path.split(/[\\/]/).some((segment) => segment.startsWith("."));
}

export function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(nodePath().sep) ? root : root + nodePath().sep);
}
