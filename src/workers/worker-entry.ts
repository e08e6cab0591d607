/// <reference lib="webworker" />
/**
 * The entry of a handler Worker: imports the app's main file in worker mode,
 * runs its startup handlers, then answers calls of offloaded handlers with
 * the app's own copy of the call runner (src/workers/run-call.ts); streams
 * bodies chunk by chunk as the main thread pulls them; runs the shutdown
 * handlers when the pool closes (startup and shutdown are symmetric).
 */

import { DASHBOARD_WORKER_ENV } from "../dashboard/options.ts";
import { defaultServiceName, OTEL_WORKER_ENV } from "../observability/options.ts";
import type { TopicHub } from "../topics/hub.ts";
import type {
  WorkerCall,
  WorkerClosed,
  WorkerControl,
  WorkerFailure,
  WorkerPublish,
  WorkerReady,
  WorkerTopicInterest,
} from "./protocol.ts";
import { WORKER_MAIN_FILE_ENV } from "./protocol.ts";
import * as ownCopy from "./run-call.ts";
import { enterWorkerMode, registeredApps, type WorkerKit, workerKit } from "./worker-mode.ts";

declare const self: Worker;

const kit = (): WorkerKit => workerKit() ?? ownCopy;

async function load(): Promise<ownCopy.LoadedApp> {
  enterWorkerMode();
  const mainFile = process.env[WORKER_MAIN_FILE_ENV];
  if (!mainFile) throw new Error(`${WORKER_MAIN_FILE_ENV} is not set`);
  // The main thread's SDK is on (--otel): this Worker exports the spans of its handlers itself.
  if (process.env[OTEL_WORKER_ENV] === "1") {
    const { startOtelSdk } = await import("../observability/otel-sdk.ts");
    await startOtelSdk({ serviceName: defaultServiceName(mainFile) });
  } else if (process.env[DASHBOARD_WORKER_ENV] === "1") {
    // The main thread's dashboard shows this Worker's spans too (docs/dashboard.md).
    const { recordWorkerSpans } = await import("../dashboard/worker-spans.ts");
    await recordWorkerSpans();
  }
  await import(mainFile);
  const app = registeredApps().find((candidate) => candidate.mainFile === mainFile) ?? registeredApps()[0];
  if (!app) throw new Error(`${mainFile} created no Webfw app`);
  // Topics go through the main thread, which has the server and Redis: publishes are sent there,
  // and the topics this Worker's subscribers (`app.subscribe` in an offloaded handler) want come back.
  hub = app.topicHub();
  hub.upstream = {
    publish: (topic, text) => self.postMessage({ publish: [topic, text] } satisfies WorkerPublish),
    subscribe: (topic) => self.postMessage({ subscribeTopic: topic } satisfies WorkerTopicInterest),
    unsubscribe: (topic) => self.postMessage({ unsubscribeTopic: topic } satisfies WorkerTopicInterest),
  };
  return kit().loadHandlers(app);
}

let hub: TopicHub | null = null;

async function flushTelemetry(): Promise<void> {
  if (process.env[OTEL_WORKER_ENV] !== "1") return;
  const { startedOtelSdk } = await import("../observability/otel-sdk.ts");
  await (await startedOtelSdk()?.catch(() => null))?.shutdown();
}
const loading = load();
const failed: ownCopy.LoadedApp = { app: null, handlers: new Map() };

async function onCall(call: WorkerCall | string): Promise<void> {
  const reply = await kit().runCall(await loading.catch(() => failed), call);
  // A handler's text answer, as one string (src/workers/wire.ts): nothing in it can fail to clone.
  if (typeof reply === "string") {
    self.postMessage(reply);
    return;
  }
  const transfer = "body" in reply && reply.body ? [reply.body.buffer as ArrayBuffer] : [];
  try {
    self.postMessage(reply, transfer);
  } catch (error) {
    // What the handler left in request.state (a function, a class instance) cannot cross threads.
    const message = `the reply could not be sent to the main thread: ${(error as Error)?.message ?? error}; keep only data in request.state on offloaded routes`;
    if ("streamed" in reply && reply.streamed) kit().cancelStream(reply.id);
    self.postMessage({ id: reply.id, error: { name: "DataCloneError", message } } satisfies WorkerFailure);
  }
}

async function onControl(control: WorkerControl): Promise<void> {
  if ("pull" in control) {
    const step = await kit().pullChunk(control.pull);
    self.postMessage(step, "chunk" in step ? [step.chunk.buffer as ArrayBuffer] : []);
  } else if ("cancel" in control) kit().cancelStream(control.cancel);
  else if ("topicMessage" in control) hub?.deliverHere(...control.topicMessage);
  else {
    const errors = await kit().runShutdown(await loading.catch(() => failed));
    // The pool terminates this Worker next: spans still buffered are exported first.
    await flushTelemetry();
    self.postMessage({ closed: true, errors } satisfies WorkerClosed);
  }
}

// Listen before the app has loaded: a message that arrives meanwhile (a replacement Worker gets
// traffic at once) would otherwise be dropped, and its request would never be answered.
self.onmessage = (event: MessageEvent<WorkerCall | WorkerControl | string>) => {
  const data = event.data;
  // A call comes as one string (the plain form of src/workers/wire.ts) or as an object with a route.
  if (typeof data === "string" || "route" in data) void onCall(data);
  else void onControl(data);
};
try {
  const loaded = await loading;
  self.postMessage({ ready: true, routes: [...loaded.handlers.keys()] } satisfies WorkerReady);
} catch (error) {
  self.postMessage({
    ready: true,
    routes: [],
    error: String((error as Error)?.stack ?? error),
  } satisfies WorkerReady);
}
