/**
 * Options renamed before 1.0 (CHANGELOG.md, "Unreleased"; docs/options.md): given under the old
 * name, from JavaScript or past a cast, an option would be silently ignored, so it is refused with
 * the new spelling instead.
 */

/** App options (`new Webfw(path, options)`): old name → what to write now. */
const APP_OPTIONS: Readonly<Record<string, string>> = {
  requestTimeoutMs: "timeoutMs",
};

/** Route options: old name → what to write now. */
const ROUTE_OPTIONS: Readonly<Record<string, string>> = {
  rawBody: 'body: "stream"',
  cache: "cacheResponses",
};

function refuseRenamed(options: object, renamed: Readonly<Record<string, string>>, where: string): void {
  for (const [old, now] of Object.entries(renamed)) {
    if (Object.hasOwn(options, old)) throw new TypeError(`${where}: the option ${old} is now ${now}`);
  }
}

/** Throws when `options` of `new Webfw` uses a removed spelling. */
export function refuseRenamedAppOptions(options: object): void {
  refuseRenamed(options, APP_OPTIONS, "new Webfw");
}

/** Throws when a route's `options` use a removed spelling; `where` names the route. */
export function refuseRenamedRouteOptions(options: object, where: string): void {
  refuseRenamed(options, ROUTE_OPTIONS, where);
}
