/**
 * Where each route was registered (`file:line`), for the development dashboard's route view
 * (docs/dashboard.md). Recorded only in development (`--dev` on the command line, or an app made
 * with `dev: true` or a `dashboard` option): one stack capture per registration, at start, never
 * per request; otherwise `noteRouteSource` returns at its first comparison.
 */

let capturing = process.argv.includes("--dev");
const sources = new WeakMap<object, string>();
// This folder's parent is webfw's src/: frames inside it are the framework's, not the app's.
const FRAMEWORK = import.meta.dir.slice(0, import.meta.dir.lastIndexOf("/") + 1);

/** Turns recording on (an app asked for development features in its options). */
export function captureRouteSources(): void {
  capturing = true;
}

/** Notes where `route` (its record) is being registered: the first stack frame outside webfw's src/. */
export function noteRouteSource(route: object): void {
  if (!capturing) return;
  const stack = new Error().stack ?? "";
  for (const frame of stack.split("\n").slice(1)) {
    const location = /\(?((?:file:\/\/)?\/[^\s()]+:\d+):\d+\)?\s*$/.exec(frame)?.[1];
    if (location === undefined) continue;
    const path = location.replace(/^file:\/\//, "");
    if (path.startsWith(FRAMEWORK)) continue;
    // Relative to where the app was started, as an editor's "go to file" takes it.
    const cwd = `${process.cwd()}/`;
    sources.set(route, path.startsWith(cwd) ? path.slice(cwd.length) : path);
    return;
  }
}

/** `file:line` where `route` was registered, when recorded. */
export function routeSourceOf(route: object): string | undefined {
  return sources.get(route);
}
