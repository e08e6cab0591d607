/**
 * The first stop of a request on the `bun` engine: Bun's native route table.
 * Each entry is either a const route's static response (Bun answers without
 * any JavaScript), a small function that checks the target, reads the path params and calls
 * the route's compiled dispatcher, or, for a host-blind route on a fixed path, the dispatcher's
 * own entry (src/serve/dispatch.ts, `fixedPathEntry`): nothing to check or read first, so Bun
 * calls into the dispatcher's file directly. Requests Bun's table cannot answer safely go to the
 * generic path (src/serve/runtime.ts).
 */
import type { Server } from "bun";
import { DispatchContext } from "../http/request-context.ts";
import { hostHeaderProblem, hrefRequestProblem, urlProblemOf } from "../http/request-target.ts";
import { bunRouteTable, nativeParamReader, type PatternFor } from "../match/bun-routes.ts";
import { withVisibleContentType } from "../response/plain-text.ts";
import { patternParams } from "../router/route.ts";
import { type Dispatcher, fixedPathEntry, type Params } from "./dispatch.ts";
import { isHostBlind } from "./host-blind.ts";
import { decodeParams, type RouteTable } from "./runtime.ts";

type WebResponse = globalThis.Response;
/** What Bun calls for one method of one route key. */
export type BunHandler = (req: Bun.BunRequest, server: Server<unknown>) => WebResponse | Promise<WebResponse>;
/** `Bun.serve({ routes })`: route key → method → handler or static response. */
export type BunRoutes = Record<string, Partial<Record<string, BunHandler | WebResponse>>>;

/**
 * Bun's native route table: one function per method, or the static response of a const route.
 * `only` restricts it to some patterns (see `constRoutes`).
 */
export function nativeRoutes(
  table: RouteTable,
  statics: ReadonlyMap<string, WebResponse | BunHandler>,
  slowPath: BunHandler,
  patternFor: PatternFor,
  only?: Set<string>,
): BunRoutes {
  const routes: BunRoutes = {};
  // bunRouteTable validates every pattern and resolves the key collisions as the JS trie would.
  const keys = bunRouteTable(table.keys());
  for (const [key, pattern] of keys) {
    if (only && !only.has(pattern)) continue;
    const methods = table.get(pattern) as Map<string, Dispatcher>;
    const entry: Partial<Record<string, BunHandler | WebResponse>> = {};
    const readParams = paramReader(pattern, patternFor);
    for (const [method, dispatcher] of methods) {
      const fixed = statics.get(`${method} ${pattern}`);
      entry[method] = fixed ?? nativeHandler(dispatcher, pattern, readParams, slowPath);
    }
    const get = entry.GET;
    if (typeof get === "function" && !methods.has("HEAD")) entry.HEAD = headOf(get);
    routes[key] = entry;
  }
  return routes;
}

/**
 * The `js` and `ffi` engines match in JavaScript, but a const route on a fixed path still goes to
 * Bun's native table as a static response (docs/routing.md, const routes: "a static Response, no JS at
 * all"): there is nothing to match. The other methods of that path go with it, exactly as the
 * `bun` engine serves them; everything else stays with the engine.
 */
export function constRoutes(
  table: RouteTable,
  statics: ReadonlyMap<string, WebResponse | BunHandler>,
  slowPath: BunHandler,
): BunRoutes {
  const fixed = new Set<string>();
  for (const id of statics.keys()) {
    const pattern = id.slice(id.indexOf(" ") + 1);
    if (table.has(pattern) && patternParams(pattern).length === 0) fixed.add(pattern);
  }
  if (fixed.size === 0) return {};
  try {
    // Fixed paths only: Bun matched the target exactly, so there is nothing to re-match.
    return nativeRoutes(table, statics, slowPath, () => null, fixed);
  } catch {
    // A pattern Bun's table cannot take: the engine serves the const route too (from JavaScript).
    return {};
  }
}

/**
 * HEAD of a GET route. Bun would answer it from the GET handler by itself, but it writes the type
 * it implies for a string body (src/response/plain-text.ts) only with a body: the headers get it.
 */
function headOf(get: BunHandler): BunHandler {
  return (req, server) => {
    const response = get(req, server);
    return response instanceof Promise
      ? response.then(withVisibleContentType)
      : withVisibleContentType(response);
  };
}

/**
 * The route's params, or `null` when the request must be re-routed by its resolved path. `href` is
 * `req.url`, read once by the caller for the target check too (each read builds the string again).
 */
type ParamSource = (req: Bun.BunRequest, href: string) => Params | null;

/**
 * Bun matches the raw target but `req.url` holds it with dot segments resolved
 * (src/http/request-target.ts): `nativeParamReader` sends the requests where
 * they differ back to the generic path, which routes them as the `js` engine
 * does. Bun also decodes `req.params` itself and turns malformed escapes into
 * U+FFFD; the framework's contract is strict decoding, so percent-encoded
 * paths (and wildcards, whose capture Bun does not report) are re-read from
 * the raw path.
 */
function paramReader(pattern: string, patternFor: PatternFor): ParamSource {
  if (patternParams(pattern).length === 0) return () => ({});
  const read = nativeParamReader(pattern, patternFor);
  return (req, href) => {
    const bunParams = req.params as Params;
    const raw = read(href, bunParams);
    if (raw === null || raw === bunParams) return raw;
    return decodeParams(raw);
  };
}

/**
 * The function Bun calls for one method of one route. The request-target check
 * (src/http/request-target.ts) runs whole before the dispatcher, except on a host-blind route
 * (src/serve/host-blind.ts), whose answer cannot depend on the Host or the target before its
 * handler looks: there the handler's first look at the URL, query or headers finishes it. On a
 * fixed path Bun matched the target exactly, so nothing is read up front (`req.url` alone is an
 * eighth of a bare `GET /`); with params `req.url` is read anyway, so it is checked then.
 */
function nativeHandler(
  dispatcher: Dispatcher,
  pattern: string,
  readParams: ParamSource,
  slowPath: BunHandler,
): BunHandler {
  if (!isHostBlind(dispatcher)) {
    return (req, server) => dispatchNative(dispatcher, req, server, hrefRequestProblem, readParams, slowPath);
  }
  // The dispatcher's own entry (src/serve/dispatch.ts): Bun calls into that file directly.
  if (patternParams(pattern).length === 0) return fixedPathEntry(dispatcher);
  return (req, server) =>
    dispatchNative(dispatcher, req, server, urlProblemOf, readParams, slowPath, HOST_LINES_PENDING);
}

/** What a host-blind route with params leaves: the second Host line the URL cannot show. */
const HOST_LINES_PENDING = Object.freeze(
  new DispatchContext(Object.freeze({ host: hostHeaderProblem, target: null }), true),
);

/** One native-table request: the request-target check, the params, then the route's dispatcher. */
function dispatchNative(
  dispatcher: Dispatcher,
  req: Bun.BunRequest,
  server: Server<unknown>,
  check: (req: globalThis.Request, href: string) => string | null,
  readParams: ParamSource,
  slowPath: BunHandler,
  context?: DispatchContext,
): WebResponse | Promise<WebResponse> {
  const href = req.url;
  // A bad Host or target: the generic path answers 400 with the global middlewares and headers.
  if (check(req, href) !== null) return slowPath(req, server);
  let params: Params | null;
  try {
    params = readParams(req, href);
  } catch {
    // Malformed escapes: the generic path answers 400 with the global middlewares and headers.
    return slowPath(req, server);
  }
  return params === null ? slowPath(req, server) : dispatcher(req, server, params, context);
}
