import { nodeFs } from "../builtins.ts";
import { DISCOVER_ENV } from "./embedded.ts";
/**
 * The directories an app reads at run time (`serveDirectory`, `MustacheTemplate`):
 * checked when they are named (a missing one is an error at start, not a 404 or a
 * 500 on the first request), and listed for `webfw build`, which embeds them in the
 * executable (src/launch/embed.ts).
 *
 * `webfw build` imports the app once with `WEBFW_BUILD_DISCOVER=<file>`: every
 * directory named is written to that file when the process ends, and `start()`
 * ends it before listening (src/launch/server.ts).
 */

export type DirectoryUser = "serveDirectory" | "MustacheTemplate";

export interface NamedDirectory {
  user: DirectoryUser;
  path: string;
}

// In ./embedded.ts, which `start()` reads without loading this module (start-up, docs/performance.md).
export { DISCOVER_ENV, inDiscoverMode } from "./embedded.ts";

const STATE_KEY = Symbol.for("webfw.namedDirectories");
const holder = globalThis as unknown as Record<symbol, NamedDirectory[] | undefined>;

function named(): NamedDirectory[] {
  if (holder[STATE_KEY] === undefined) {
    holder[STATE_KEY] = [];
    const target = process.env[DISCOVER_ENV];
    if (target) process.on("exit", () => nodeFs().writeFileSync(target, JSON.stringify(holder[STATE_KEY])));
  }
  return holder[STATE_KEY];
}

/** Throws unless `path` (absolute) is a directory; records it for `webfw build`. */
export function requireDirectory(user: DirectoryUser, path: string): void {
  let isDirectory = false;
  try {
    isDirectory = nodeFs().statSync(path).isDirectory();
  } catch {
    // Missing or unreadable: reported below.
  }
  if (!isDirectory) {
    const hint = path.startsWith("/$bunfs/")
      ? " (inside a compiled binary: `webfw build` embeds the directory when it exists at build time)"
      : "";
    throw new Error(`${user}: directory not found: ${path}${hint}`);
  }
  named().push({ user, path });
}

/** The directories named so far (this process). */
export function namedDirectories(): readonly NamedDirectory[] {
  return named();
}
