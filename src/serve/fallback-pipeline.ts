/**
 * Static files (`serveDirectory`) answer from the fetch fallback, where no route
 * matched. Without this they would bypass the app: a global before-middleware
 * guarding a path, CORS, sessions, after-middlewares and the response header
 * rules. Each fallback's answer is passed through a dispatcher made of the
 * app-global middlewares, like the 404/405 answers (src/plan/build.ts), so a static
 * file is served under the same rules as a route. The file is looked up first
 * (a fallback that declines passes the request on untouched, to the next one or
 * the 404), then the before-middlewares run and may still refuse it.
 */

import { ContextSlot, DispatchContext } from "../http/request-context.ts";
import type { AfterMiddleware, BeforeMiddleware } from "../router/middleware.ts";
import { builtInPlan, compileRoute, type Dispatcher, type PipelineConfig } from "./dispatch.ts";
import type { FallbackHandler } from "./runtime.ts";

type WebResponse = globalThis.Response;

/** The answer a fallback found, in the context of the request its dispatcher runs for. */
const FOUND = new ContextSlot<WebResponse>();

export function fallbacksThroughPipeline(
  fallbacks: readonly FallbackHandler[],
  before: BeforeMiddleware[],
  after: AfterMiddleware[],
  config: PipelineConfig,
  wrap: (dispatcher: Dispatcher) => Dispatcher,
): FallbackHandler[] {
  if (fallbacks.length === 0) return [];
  const plan = builtInPlan("", "GET", (request) => FOUND.get(request.context) ?? null, before, after);
  // Static answers are for GET and HEAD: there is no body to read.
  plan.rawBody = true;
  const dispatcher = wrap(compileRoute(plan, config));
  return fallbacks.map((fallback) => async (raw, server) => {
    const response = await fallback(raw, server);
    if (response === null) return null;
    const context = new DispatchContext();
    FOUND.set(context, response);
    return dispatcher(raw, server, {}, context);
  });
}
