/**
 * Where each route was registered (`file:line`), for the development dashboard's route view
 * (docs/dashboard.md). Recorded only in development (`--dev` on the command line, or an app made
 * with `dev: true` or a `dashboard` option): one stack capture per registration, at start, never
 * per request; otherwise `noteRouteSource` returns at its first comparison.
 */
import { frameworkCodeDir } from "../package-layout.ts";

let capturing = process.argv.includes("--dev");
const sources = new WeakMap<object, string>();
// webfw's src/ (or dist/, built): frames inside it are the framework's, not the app's. Found on
// the first capture: a module's own folder says nothing once bundled (src/package-layout.ts).
let framework: string | undefined;

/** Turns recording on (an app asked for development features in its options). */
export function captureRouteSources(): void {
  capturing = true;
}

/** Notes where `route` (its record) is being registered: the first stack frame outside webfw's src/. */
export function noteRouteSource(route: object): void {
  if (!capturing) return;
  framework ??= frameworkCodeDir();
  const stack = new Error().stack ?? "";
  for (const frame of stack.split("\n").slice(1)) {
    const location = /\(?((?:file:\/\/)?\/[^\s()]+:\d+):\d+\)?\s*$/.exec(frame)?.[1];
    if (location === undefined) continue;
    const path = location.replace(/^file:\/\//, "");
    if (path.startsWith(framework)) continue;
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
