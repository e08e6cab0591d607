/**
 * Runs one call of a handler Worker: rebuilds the request, calls the handler,
 * converts its value. It is registered by the app's own copy of webfw
 * (src/workers/worker-mode.ts) and the entry calls that copy: inside a
 * compiled binary the worker entry and the app are separate bundles with
 * their own copies of every class, and a `serveFile()`, `html()` or webfw
 * `Response` made by the app's copy is only recognised by the same copy (the
 * entry's copy sent a `serveFile` result as JSON, path and root included).
 */
import type { Webfw } from "../app.ts";
import { toWebResponse } from "../convert.ts";
import { HttpError } from "../errors.ts";
import { Identity } from "../identity.ts";
import { Request } from "../request.ts";
import { markClientData } from "../response/client-data.ts";
import { Session } from "../sessions/session.ts";
import type { WorkerCall, WorkerFailure, WorkerReply } from "./protocol.ts";

export type RouteHandler = (request: Request) => unknown;

/** The handlers of an app by `METHOD /pattern`, after its startup handlers ran. */
export async function loadHandlers(app: Webfw): Promise<Map<string, RouteHandler>> {
  for (const handler of app.startupHandlers) await handler();
  const handlers = new Map<string, RouteHandler>();
  for (const route of app.allRoutes())
    handlers.set(`${route.method} ${route.path}`, route.handler as RouteHandler);
  return handlers;
}

export async function runCall(
  handlers: Map<string, RouteHandler>,
  call: WorkerCall,
): Promise<WorkerReply | WorkerFailure> {
  const handler = handlers.get(call.route);
  if (!handler)
    return { id: call.id, error: { name: "Error", message: `no handler for ${call.route} in worker` } };
  const raw = new globalThis.Request(call.url, { method: call.method, headers: call.headers });
  const request = new Request(raw, call.pathParams);
  request.bodyBytes = call.body;
  // Cloned across the thread: the client-data marks (src/response/client-data.ts) are set again here.
  request.args = call.args;
  request.parsedBody = call.parsedBody;
  markClientData(request.args);
  markClientData(request.parsedBody);
  request.identity = call.identityClaims ? new Identity({ claims: call.identityClaims }) : null;
  request.ipAddr = call.ipAddr;
  request.form = call.form;
  request.session = call.session ? Session.detached(call.session) : null;
  try {
    const response = await toWebResponse(await handler(request), raw);
    const body = response.body === null ? null : new Uint8Array(await response.arrayBuffer());
    const session = request.session?.snapshot() ?? null;
    return { id: call.id, status: response.status, headers: [...response.headers.entries()], body, session };
  } catch (error) {
    const failure: WorkerFailure["error"] = {
      name: (error as Error)?.name ?? "Error",
      message: (error as Error)?.message ?? String(error),
      stack: (error as Error)?.stack,
    };
    if (error instanceof HttpError) {
      failure.status = error.status;
      failure.headers = error.headers;
    }
    return { id: call.id, error: failure, session: request.session?.snapshot() ?? null };
  }
}
