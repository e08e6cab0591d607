import type { Request } from "./request.ts";
import type { Response } from "./response.ts";

/**
 * Runs before the handler. Returns the (possibly changed) request, nothing to
 * continue, or a response, which is sent at once: the remaining before
 * middlewares, the handler and the after middlewares are skipped.
 */
export type BeforeMiddleware = (
  request: Request,
) => Request | Response | globalThis.Response | undefined | void | Promise<Request | Response | globalThis.Response | undefined | void>;

/** Runs after the handler with its response (and the request); returns the response to send. */
export type AfterMiddleware = (
  response: Response,
  request: Request,
) => Response | globalThis.Response | undefined | void | Promise<Response | globalThis.Response | undefined | void>;

export interface ScopedMiddleware<F> {
  /** `null`: every route of the router; else the route pattern it applies to (every method). */
  path: string | null;
  fn: F;
}
