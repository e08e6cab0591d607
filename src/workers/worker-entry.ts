/// <reference lib="webworker" />
/**
 * The entry of a handler Worker: imports the app's main file in worker mode,
 * runs its startup handlers, then answers calls of synchronous handlers.
 */
import type { Webfw } from "../app.ts";
import { toWebResponse } from "../convert.ts";
import { HttpError } from "../errors.ts";
import { Identity } from "../identity.ts";
import { Request } from "../request.ts";
import { markClientData } from "../response/client-data.ts";
import { Session } from "../sessions/session.ts";
import type { WorkerCall, WorkerFailure, WorkerReady, WorkerReply } from "./protocol.ts";
import { WORKER_MAIN_FILE_ENV } from "./protocol.ts";
import { enterWorkerMode, registeredApps } from "./worker-mode.ts";

declare const self: Worker;

type RouteHandler = (request: Request) => unknown;

async function load(): Promise<Map<string, RouteHandler>> {
  enterWorkerMode();
  const mainFile = process.env[WORKER_MAIN_FILE_ENV];
  if (!mainFile) throw new Error(`${WORKER_MAIN_FILE_ENV} is not set`);
  await import(mainFile);
  const app = registeredApps().find((candidate) => candidate.mainFile === mainFile) ?? registeredApps()[0];
  if (!app) throw new Error(`${mainFile} created no Webfw app`);
  for (const handler of (app as Webfw).startupHandlers) await handler();
  const handlers = new Map<string, RouteHandler>();
  for (const route of app.allRoutes())
    handlers.set(`${route.method} ${route.path}`, route.handler as RouteHandler);
  return handlers;
}

async function answer(
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

const loading = load();
// Listen before the app has loaded: a message that arrives meanwhile (a replacement Worker gets
// traffic at once) would otherwise be dropped, and its request would never be answered.
self.onmessage = async (event: MessageEvent<WorkerCall>) => {
  const reply = await answer(await loading.catch(() => new Map<string, RouteHandler>()), event.data);
  const transfer = "body" in reply && reply.body ? [reply.body.buffer as ArrayBuffer] : [];
  self.postMessage(reply, transfer);
};
try {
  const handlers = await loading;
  self.postMessage({ ready: true, routes: [...handlers.keys()] } satisfies WorkerReady);
} catch (error) {
  self.postMessage({
    ready: true,
    routes: [],
    error: String((error as Error)?.stack ?? error),
  } satisfies WorkerReady);
}
