/// <reference lib="webworker" />
/**
 * The entry of a handler Worker: imports the app's main file in worker mode,
 * runs its startup handlers, then answers calls of synchronous handlers
 * with the app's own copy of the call runner (src/workers/run-call.ts).
 */
import type { WorkerCall, WorkerReady } from "./protocol.ts";
import { WORKER_MAIN_FILE_ENV } from "./protocol.ts";
import { loadHandlers, type RouteHandler, runCall } from "./run-call.ts";
import { enterWorkerMode, registeredApps, workerKit } from "./worker-mode.ts";

declare const self: Worker;

async function load(): Promise<Map<string, RouteHandler>> {
  enterWorkerMode();
  const mainFile = process.env[WORKER_MAIN_FILE_ENV];
  if (!mainFile) throw new Error(`${WORKER_MAIN_FILE_ENV} is not set`);
  await import(mainFile);
  const app = registeredApps().find((candidate) => candidate.mainFile === mainFile) ?? registeredApps()[0];
  if (!app) throw new Error(`${mainFile} created no Webfw app`);
  return (workerKit()?.loadHandlers ?? loadHandlers)(app);
}

const loading = load();
// Listen before the app has loaded: a message that arrives meanwhile (a replacement Worker gets
// traffic at once) would otherwise be dropped, and its request would never be answered.
self.onmessage = async (event: MessageEvent<WorkerCall>) => {
  const run = workerKit()?.runCall ?? runCall;
  const reply = await run(await loading.catch(() => new Map<string, RouteHandler>()), event.data);
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
