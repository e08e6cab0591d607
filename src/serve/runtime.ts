/**
 * Step 2 of a request (docs/architecture.md): Bun's `fetch`, for every request its route table did
 * not answer. The request-target check, the engine's match, strict param decoding, HEAD/OPTIONS/405,
 * static fallbacks and the 404 — each framework answer through the app-global middlewares.
 */

import type { Server } from "bun";
import { matchPath, requestProblem } from "../http/request-target.ts";
import { createMatcher } from "../match/index.ts";
import type { PathMatcher, RouterEngine } from "../match/types.ts";
import { copyResponse } from "../response/copy-response.ts";
import { BadRequestError } from "../response/errors.ts";
import type { Dispatcher, Params } from "./dispatch.ts";
import type { AnswerScope, ErrorDispatchers } from "./error-dispatchers.ts";

type WebResponse = globalThis.Response;

/** A handler that may answer a request no route matched (static directories, …); `null` passes it on. */
export type FallbackHandler = (
  raw: globalThis.Request,
  server: Server<unknown> | null,
) => WebResponse | null | Promise<WebResponse | null>;

/** Every pattern's dispatchers by method. */
export type RouteTable = Map<string, Map<string, Dispatcher>>;

/**
 * Matching outside Bun's native router: the `fetch` fallback (404, 405,
 * HEAD, OPTIONS, trailing slashes Bun did not catch), the `js`/`ffi` engines,
 * and the in-process test client.
 */
export class Runtime {
  private readonly matcher: PathMatcher;

  constructor(
    readonly table: RouteTable,
    engine: RouterEngine,
    private readonly fallbacks: FallbackHandler[],
    /** Answers with the app-global middlewares around an error status (404, 405, 400). */
    private readonly errorDispatcher: ErrorDispatchers,
    /** The middlewares of each pattern's routes, for its 204/405 answers (default: the app-global ones). */
    private readonly scopes: ReadonlyMap<string, AnswerScope> = new Map(),
  ) {
    this.matcher = createMatcher(engine);
    for (const pattern of table.keys()) this.matcher.add(pattern);
  }

  handle(raw: globalThis.Request, server: Server<unknown> | null): WebResponse | Promise<WebResponse> {
    // One request-target rule on every engine (src/http/request-target.ts): bad Host or target is a 400.
    const problem = requestProblem(raw);
    if (problem !== null) return this.errorDispatcher(400, {}, problem, true)(raw, server, {});
    const path = matchPath(raw.url);
    const match = this.matcher.match(path);
    if (match === null) return this.unmatched(raw, server);
    const methods = this.table.get(match.pattern) as Map<string, Dispatcher>;
    let params: Params;
    try {
      params = decodeParams(match.params);
    } catch (error) {
      return this.errorDispatcher(
        400,
        {},
        (error as Error).message,
        false,
        undefined,
        match.pattern,
      )(raw, server, {});
    }
    const dispatcher = methods.get(raw.method);
    if (dispatcher) return dispatcher(raw, server, params);
    if (raw.method === "HEAD") {
      const get = methods.get("GET");
      if (get) return withoutBody(get(raw, server, params));
    }
    const allow = allowHeader(methods);
    const scope = this.scopes.get(match.pattern);
    if (raw.method === "OPTIONS")
      return this.errorDispatcher(
        204,
        { allow },
        undefined,
        false,
        scope,
        match.pattern,
      )(raw, server, params);
    return this.errorDispatcher(405, { allow }, undefined, false, scope, match.pattern)(raw, server, params);
  }

  /** The pattern a resolved path matches (the `bun` engine re-checks Bun's choice with it), or null. */
  patternFor(path: string): string | null {
    return this.matcher.match(path)?.pattern ?? null;
  }

  private async unmatched(raw: globalThis.Request, server: Server<unknown> | null): Promise<WebResponse> {
    for (const fallback of this.fallbacks) {
      const response = await fallback(raw, server);
      if (response) return response;
    }
    return this.errorDispatcher(404)(raw, server, {});
  }

  close(): void {
    this.matcher.close?.();
  }
}

/** The methods a path answers, for `Allow` (HEAD comes with GET, OPTIONS always). */
export function allowHeader(methods: Map<string, unknown>): string {
  const allowed = new Set(methods.keys());
  if (allowed.has("GET")) allowed.add("HEAD");
  allowed.add("OPTIONS");
  return [...allowed].join(", ");
}

/** Strict percent-decoding of path parameters: a malformed escape is a 400, not a guess. */
export function decodeParams(raw: Record<string, string>): Params {
  const params: Params = {};
  for (const name in raw) {
    const value = raw[name] as string;
    if (!value.includes("%")) params[name] = value;
    else {
      try {
        params[name] = decodeURIComponent(value);
      } catch {
        throw new BadRequestError(`malformed percent-encoding in path parameter '${name}'`);
      }
    }
  }
  return params;
}

function withoutBody(response: WebResponse | Promise<WebResponse>): WebResponse | Promise<WebResponse> {
  if (response instanceof Promise) return response.then((r) => withoutBody(r) as WebResponse);
  return copyResponse(response, { body: false });
}
