/**
 * Runs one call of a handler Worker: rebuilds the request, calls the handler,
 * converts its value. It is registered by the app's own copy of webfw
 * (src/workers/worker-mode.ts) and the entry calls that copy: inside a
 * compiled binary the worker entry and the app are separate bundles with
 * their own copies of every class, and a `serveFile()`, `html()` or webfw
 * `Response` made by the app's copy is only recognised by the same copy (the
 * entry's copy sent a `serveFile` result as JSON, path and root included).
 *
 * What an offloaded handler sees (docs/workers.md): the dependencies of the
 * Worker's own copy of the app (the same `injectGlobal`/`inject` calls ran when
 * the Worker imported the app file: never cloned live handles), the identity's
 * claims, the session, `request.state`, args and body. A body still being
 * produced (`sse()`, a generator, a large file) is streamed to the main thread
 * chunk by chunk, pulled by it (so a slow client slows the producer).
 */

import type { AppState } from "../app-state.ts";
import { Identity } from "../auth/identity.ts";
import { handOver, tasksAfter } from "../background/after-response.ts";
import { configureBackground, drainBackground } from "../background/tasks.ts";
import { responseContract } from "../contracts/enforce.ts";
import { setCspNonce } from "../http/csp-nonce.ts";
import { Request } from "../http/request.ts";
import { jobsOf } from "../jobs/lookup.ts";
import { scopeOf, walkTree } from "../plan/tree.ts";
import { markClientData } from "../response/client-data.ts";
import { isStatusPair, toWebResponse } from "../response/convert.ts";
import { withDefaultStatus } from "../response/default-status.ts";
import { HttpError } from "../response/errors.ts";
import { plainTextResponse, withVisibleContentType } from "../response/plain-text.ts";
import { Session } from "../sessions/session.ts";
import { peekBody } from "../stream/peek-body.ts";
import {
  WHOLE_BODY_LIMIT,
  type WorkerCall,
  type WorkerChunk,
  type WorkerFailure,
  type WorkerReply,
} from "./protocol.ts";
import { plainReply, readPlainCall } from "./wire.ts";

export interface RouteHandler {
  handler: (request: Request) => unknown;
  /** The route's `request.routerDependencies`, resolved as build.ts does on the main thread. */
  routerDependencies: Record<string, unknown>;
}

/** An app loaded in a Worker: its handlers by `METHOD /pattern`, after its startup handlers ran. */
export interface LoadedApp {
  app: AppState | null;
  handlers: Map<string, RouteHandler>;
}

export async function loadHandlers(app: AppState): Promise<LoadedApp> {
  // This Worker's background tasks follow the app's bounds, as the main thread's do (src/background/).
  configureBackground(app.config.background);
  for (const handler of app.startupHandlers) await handler();
  const handlers = new Map<string, RouteHandler>();
  // The same tree walk and scope rule as the main thread's build (src/plan/tree.ts), so an
  // offloaded handler sees exactly the routerDependencies it would inline.
  const tree = walkTree(app);
  for (const { route, chain } of tree.routes) {
    const handler = route.handler as (request: Request) => unknown;
    // The response contract runs here, beside the handler, as on the main thread (src/contracts/).
    const contract = responseContract(route, app.config.responseCheck);
    handlers.set(`${route.method} ${route.path}`, {
      // The route's `status` option applies in the Worker too (src/response/default-status.ts); the
      // response contract wraps it, beside the handler, as on the main thread (src/contracts/).
      handler:
        contract === null
          ? withDefaultStatus(handler, route.options.status)
          : contract(withDefaultStatus(handler, route.options.status)),
      routerDependencies: scopeOf(tree, chain, route.path).routerDependencies,
    });
  }
  // Handlers of `offload` jobs (docs/jobs.md), under the key the main thread calls them by (src/jobs/run-job.ts).
  for (const [name, handler] of jobsOf(app.globalDependencies)?.offloadedHandlers() ?? []) {
    handlers.set(`JOB ${name}`, {
      handler: (request) =>
        handler(request.parsedBody, {
          id: request.id,
          name,
          attempt: Number(request.headers.get("x-webfw-job-attempt") ?? 1),
          signal: new AbortController().signal,
        }),
      routerDependencies: {},
    });
  }
  return { app, handlers };
}

/** The shutdown handlers of the Worker's app, each run even when an earlier one fails. */
export async function runShutdown(loaded: LoadedApp): Promise<string[]> {
  const errors: string[] = [];
  // Background tasks of offloaded handlers finish first (they may use what shutdown handlers close),
  // within the time the pool gives a Worker to close (src/workers/pool.ts).
  await drainBackground(WORKER_DRAIN_MS);
  for (const handler of loaded.app?.shutdownHandlers ?? []) {
    try {
      await handler();
    } catch (error) {
      errors.push(String((error as Error)?.stack ?? error));
    }
  }
  return errors;
}

/** How long a closing Worker waits for its background tasks (the pool waits 5 s for the whole close). */
const WORKER_DRAIN_MS = 4_000;

/** Bodies the main thread is pulling, by call id. */
const streams = new Map<number, ReadableStreamDefaultReader<Uint8Array>>();

/**
 * Runs a call (`text`: the plain form of src/workers/wire.ts) and answers it: a string when the
 * handler answered text and left no session or state to carry back, else a `WorkerReply` or a
 * `WorkerFailure`.
 */
export async function runCall(
  loaded: LoadedApp,
  text: WorkerCall | string,
): Promise<string | WorkerReply | WorkerFailure> {
  const call = typeof text === "string" ? readPlainCall(text) : text;
  const plain = typeof text === "string";
  const route = loaded.handlers.get(call.route);
  if (!route)
    return { id: call.id, error: { name: "Error", message: `no handler for ${call.route} in worker` } };
  const raw = new globalThis.Request(call.url, { method: call.method, headers: call.headers });
  const request = new Request(
    raw,
    call.pathParams,
    null,
    loaded.app?.globalDependencies ?? {},
    route.routerDependencies,
  );
  request.bodyBytes = call.body;
  request.id = call.requestId;
  if (call.cspNonce !== undefined) setCspNonce(request.ownContext(), call.cspNonce);
  // Cloned across the thread: the client-data marks (src/response/client-data.ts) are set again here.
  request.args = call.args;
  request.parsedBody = call.parsedBody;
  markClientData(request.args);
  markClientData(request.parsedBody);
  request.identity = call.identityClaims ? new Identity({ claims: call.identityClaims }) : null;
  request.ipAddr = call.ipAddr;
  request.form = call.form;
  request.session = call.session ? Session.detached(call.session) : null;
  if (call.state) Object.assign(request.state, call.state);
  const state = () => (call.state || Object.keys(request.state).length > 0 ? { ...request.state } : null);
  try {
    // Headers cross as a list: a text answer's implied type must be in it (src/response/plain-text.ts).
    const respond = async (value: unknown) => withVisibleContentType(await toWebResponse(value, raw));
    let answer: string | globalThis.Response;
    // The body is known to be complete (JSON, text): read at once, without peeking at a stream.
    let whole = false;
    if (call.trace) {
      // With tracing on, the handler runs in a child span of the main thread's server span; the
      // module (and `@opentelemetry/api`) is loaded only by calls that carry a trace context.
      const { runTraced } = await import("../observability/worker-trace.ts");
      answer = await runTraced(call.trace, call.route, async () => respond(await route.handler(request)));
    } else {
      const value = await route.handler(request);
      // A text answer to a plain call goes back as the text (src/workers/wire.ts): the main thread
      // makes the same response from it. Other answers are converted here.
      answer = typeof value === "string" && plain ? value : await respond(value);
      whole = heldInMemory(value);
    }
    if (typeof answer === "string") {
      if (request.session === null && state() === null) {
        // Background tasks run here in the Worker, after this reply is posted (setImmediate, src/background/).
        if (request.backgroundTasks !== null) handOver(request);
        return plainReply(call.id, answer);
      }
      answer = withVisibleContentType(plainTextResponse(answer));
    }
    // Background tasks run here in the Worker, after this reply is posted (setImmediate, src/background/),
    // or after a streamed body's last chunk was handed to the main thread.
    const response = tasksAfter(request, answer);
    let body: Uint8Array | null = null;
    let streamed = false;
    if (response.body !== null && whole) body = new Uint8Array(await response.arrayBuffer());
    else if (response.body !== null) {
      const peeked = await peekBody(response.body, WHOLE_BODY_LIMIT);
      if (peeked.complete) body = peeked.bytes;
      else {
        streams.set(call.id, peeked.stream.getReader());
        streamed = true;
      }
    }
    return {
      id: call.id,
      status: response.status,
      headers: [...response.headers.entries()],
      body,
      streamed,
      session: request.session?.snapshot() ?? null,
      state: state(),
    };
  } catch (error) {
    const failure: WorkerFailure["error"] = {
      name: (error as Error)?.name ?? "Error",
      message: (error as Error)?.message ?? String(error),
      stack: (error as Error)?.stack,
    };
    if (error instanceof HttpError) {
      failure.status = error.status;
      failure.headers = error.headers;
      const problem = error.problemInit();
      if (problem) failure.problem = problem;
    }
    return { id: call.id, error: failure, session: request.session?.snapshot() ?? null, state: state() };
  }
}

/**
 * Whether a handler's value converts to a body held in memory (src/response/convert.ts): text,
 * JSON (a plain object, an array that is not a `[value, status]` pair, a number or boolean), a
 * dictionary response (its description is text or bytes). Anything else may stream and is peeked.
 */
function heldInMemory(value: unknown): boolean {
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return true;
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return !isStatusPair(value);
  return (
    Object.getPrototypeOf(value) === Object.prototype &&
    !(Symbol.asyncIterator in value) &&
    !(Symbol.iterator in value)
  );
}

/** The next chunk of a streamed body (the main thread asks for one when its reader wants one). */
export async function pullChunk(id: number): Promise<WorkerChunk> {
  const reader = streams.get(id);
  if (!reader) return { id, streamError: "no such stream" };
  try {
    const { done, value } = await reader.read();
    if (!done) return { id, chunk: value };
    streams.delete(id);
    return { id, end: true };
  } catch (error) {
    streams.delete(id);
    return { id, streamError: String((error as Error)?.message ?? error) };
  }
}

/** The client went away: stop the producer (a generator's `finally` runs). */
export function cancelStream(id: number): void {
  const reader = streams.get(id);
  streams.delete(id);
  reader?.cancel().catch(() => {});
}
