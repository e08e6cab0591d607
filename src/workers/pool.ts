import { forwardedClient } from "../http/client-address.ts";
import type { Request } from "../http/request.ts";
import { absoluteUrl } from "../http/request-target.ts";
import { logger } from "../log/logger.ts";
import { packageModule } from "../package-layout.ts";
import { HttpError } from "../response/errors.ts";
import { plainTextResponse, withVisibleContentType } from "../response/plain-text.ts";
import { RequestTimeoutError } from "../serve/timeout.ts";
import type { TopicHub } from "../topics/hub.ts";
import { BodyProxies } from "./body-proxy.ts";
import type { WorkerCall, WorkerFailure, WorkerMessage, WorkerReply } from "./protocol.ts";
import { WORKER_MAIN_FILE_ENV } from "./protocol.ts";
import { plainCall, readPlainReply } from "./wire.ts";

/** A call waiting in the main thread's queue or running in a Worker. */
interface Call {
  id: number;
  message: WorkerCall | string;
  request: Request;
  resolve: (response: globalThis.Response) => void;
  reject: (error: unknown) => void;
  settled: boolean;
}

interface Slot {
  worker: Worker;
  /** The one call this Worker runs now; `null` when it is free. */
  current: Call | null;
  loaded: boolean;
  /** Terminates the Worker, fails its current call with `error`, and puts a new Worker in its place. */
  recycle: (reason: string, error?: unknown) => void;
  ready: Promise<void>;
  /** Bodies this Worker is streaming to clients. */
  bodies: BodyProxies;
  /** Resolves when the Worker answered `{ shutdown }` (its shutdown handlers ran). */
  onClosed: (() => void) | null;
  /** Topics this Worker's subscribers want, each with how to stop feeding it. */
  topics: Map<string, () => void>;
}

/** How long a Worker's shutdown handlers may take when the pool closes. */
const SHUTDOWN_MS = 5_000;

/** A handler that threw inside a Worker, rebuilt on the main thread. */
export class WorkerHandlerError extends Error {
  constructor(name: string, message: string, stack?: string) {
    super(message);
    this.name = name;
    if (stack) this.stack = stack;
  }
}

/**
 * A pool of Bun Workers that run synchronous (CPU-bound) handlers off the
 * main thread. Each Worker imports the app's main file in worker mode.
 *
 * Scheduling (issue #13, finding 5): the queue lives on the main thread and
 * a Worker gets one call at a time, only when it is free. So a Worker stuck
 * in a handler (an endless loop, a hang) takes no new work while another is
 * free, and nothing is ever queued behind it: other requests are served by
 * the free Workers, or wait in the queue until one is free. A request
 * timeout terminates the stuck Worker and replaces it; a call still queued
 * when its deadline passes is answered with the timeout without costing a
 * Worker. A handler that throws fails its request only; a Worker that dies
 * fails only the call it was running, and is replaced.
 */
export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Call[] = [];
  private nextId = 1;
  private closed = false;
  /** The main thread's topic hub: `app.publish` and `app.subscribe` in a Worker go through it. */
  topics: TopicHub | null = null;
  /**
   * With tracing on: the active trace context as W3C headers, sent with each call so that the
   * handler's span in the Worker is a child of the request's server span (src/observability/worker-trace.ts).
   */
  traceContext: (() => Record<string, string> | undefined) | null = null;
  // A compiled binary embeds the entry elsewhere; `webfw build` tells us where through this define.
  // Otherwise it is src/workers/worker-entry.ts, or its built copy in the package (docs/packaging.md).
  private readonly entry =
    process.env.WEBFW_WORKER_ENTRY ?? Bun.pathToFileURL(packageModule("src/workers/worker-entry.ts")).href;

  constructor(
    private readonly mainFile: string,
    readonly size: number,
  ) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  /** Resolves when every Worker has loaded the app (rejects if one could not). */
  async ready(): Promise<void> {
    await Promise.all(this.slots.map((slot) => slot.ready));
  }

  /** Calls waiting for a free Worker, and Workers running a call (for metrics and tests). */
  get stats(): { queued: number; busy: number; size: number } {
    return {
      queued: this.queue.length,
      busy: this.slots.filter((s) => s.current !== null).length,
      size: this.size,
    };
  }

  /**
   * Runs the route's handler on a free Worker, or queues it until one is
   * free. With `deadlineMs`, a handler still running then is stopped the
   * only way a synchronous loop can be: its Worker is terminated and
   * replaced; a call still queued then gets the timeout answer.
   */
  run(route: string, request: Request, deadlineMs = 0): Promise<globalThis.Response> {
    if (this.closed) return Promise.reject(new HttpError(503, "Service Unavailable"));
    const id = this.nextId++;
    // A bare target (HTTP/1.0 without Host) is not a URL the Worker's `new Request` accepts.
    // Behind a trusted proxy, the URL the client asked for (docs/client-address.md); a URL without
    // a host (HTTP/1.0 without Host) stays the bare target the Worker makes absolute.
    const url =
      forwardedClient(request.raw, request.server, request.context) === null || request.url.host === ""
        ? absoluteUrl(request.raw.url)
        : request.url.toString();
    const trace = this.traceContext?.();
    // The commonest call crosses as one string (src/workers/wire.ts), the rest as an object.
    const message: WorkerCall | string = (trace === undefined
      ? plainCall(id, route, url, request)
      : null) ?? {
      id,
      route,
      url,
      method: request.method,
      headers: [...request.headers.raw.entries()],
      body: request.bodyBytes,
      pathParams: request.pathParams,
      args: request.args as Record<string, unknown>,
      parsedBody: request.parsedBody,
      identityClaims: request.identity?.claims ?? null,
      ipAddr: request.ipAddr,
      form: request.form,
      session: request.session?.snapshot() ?? null,
      state: Object.keys(request.state).length > 0 ? request.state : null,
      requestId: request.id,
      cspNonce: request.cspNonce,
      trace,
    };
    let call: Call | undefined;
    const answer = new Promise<globalThis.Response>((resolve, reject) => {
      call = { id, message, request, resolve, reject, settled: false };
    });
    const queued = call as Call;
    this.queue.push(queued);
    this.dispatch();
    if (!(deadlineMs > 0)) return answer;
    const timer = setTimeout(() => this.expire(queued), deadlineMs);
    return answer.finally(() => clearTimeout(timer));
  }

  /**
   * Stops the pool: queued calls get 503; every Worker that is not stuck in a
   * handler runs its app's shutdown handlers (as each ran its startup
   * handlers) within `SHUTDOWN_MS`, then is terminated.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const error = new HttpError(503, "Service Unavailable");
    for (const call of this.queue.splice(0)) settle(call, error);
    await Promise.all(
      this.slots.map(async (slot) => {
        if (slot.current === null && slot.loaded) {
          // A timer cleared once the Worker answers: a pending sleep would keep the process alive
          // SHUTDOWN_MS after `stop()` resolved (issue 31).
          let timer: ReturnType<typeof setTimeout> | undefined;
          const closed = new Promise<void>((resolve) => {
            slot.onClosed = resolve;
            timer = setTimeout(resolve, SHUTDOWN_MS);
          });
          try {
            slot.worker.postMessage({ shutdown: true });
            await closed;
          } catch {
            // The Worker is already gone: nothing to run there.
          } finally {
            clearTimeout(timer);
          }
        }
        if (slot.current) settle(slot.current, error);
        slot.current = null;
        slot.bodies.failAll("the worker pool closed");
        for (const stop of slot.topics.values()) stop();
        slot.topics.clear();
        slot.worker.terminate();
      }),
    );
  }

  /** Hands queued calls to free, loaded Workers, oldest first. */
  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.current !== null || !slot.loaded) continue;
      const call = this.queue.shift() as Call;
      slot.current = call;
      try {
        slot.worker.postMessage(call.message);
      } catch (error) {
        slot.current = null;
        settle(call, unsendable(error));
      }
    }
  }

  /** The deadline of a call passed: drop it from the queue, or stop the Worker running it. */
  private expire(call: Call): void {
    if (call.settled) return;
    const index = this.queue.indexOf(call);
    if (index !== -1) {
      this.queue.splice(index, 1);
      settle(call, new RequestTimeoutError());
      return;
    }
    const slot = this.slots.find((s) => s.current === call);
    slot?.recycle("handler exceeded its time limit", new RequestTimeoutError());
  }

  private spawn(): Slot {
    const worker = new Worker(this.entry, {
      env: { ...process.env, [WORKER_MAIN_FILE_ENV]: this.mainFile },
    });
    let markReady: () => void = () => {};
    let markFailed: (error: Error) => void = () => {};
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      markFailed = reject;
    });
    ready.catch(() => {});
    const slot: Slot = {
      worker,
      current: null,
      loaded: false,
      ready,
      recycle: () => {},
      bodies: new BodyProxies((control) => worker.postMessage(control)),
      onClosed: null,
      topics: new Map(),
    };
    worker.onmessage = (event: MessageEvent<WorkerMessage | string>) => {
      const message = event.data;
      if (typeof message === "string") {
        // A handler's text answer (src/workers/wire.ts): the response the Worker would have sent.
        const { id, text } = readPlainReply(message);
        const call = slot.current;
        if (call === null || call.id !== id) return;
        slot.current = null;
        settle(call, null, withVisibleContentType(plainTextResponse(text)));
        this.dispatch();
        return;
      }
      if ("chunk" in message || "end" in message || "streamError" in message) {
        slot.bodies.deliver(message);
        return;
      }
      if ("publish" in message) {
        this.topics?.publish(...message.publish);
        return;
      }
      if ("subscribeTopic" in message) {
        const topic = message.subscribeTopic;
        if (this.topics && !slot.topics.has(topic)) {
          const send = (text: string) => slot.worker.postMessage({ topicMessage: [topic, text] });
          slot.topics.set(topic, this.topics.listen(topic, send));
        }
        return;
      }
      if ("unsubscribeTopic" in message) {
        slot.topics.get(message.unsubscribeTopic)?.();
        slot.topics.delete(message.unsubscribeTopic);
        return;
      }
      if ("closed" in message) {
        for (const failure of message.errors)
          logger.error("shutdown handler failed in a Worker", { error: failure });
        slot.onClosed?.();
        return;
      }
      if ("ready" in message) {
        if (message.error) markFailed(new Error(`worker could not load the app: ${message.error}`));
        else {
          slot.loaded = true;
          markReady();
          this.dispatch();
        }
        return;
      }
      const call = slot.current;
      if (call === null || call.id !== message.id) return;
      slot.current = null;
      // A session the handler changed in the Worker comes back with the reply.
      if (message.session && call.request.session) call.request.session.absorb(message.session);
      // So is the state: after-middlewares see what the handler set.
      if (message.state) Object.assign(call.request.state, message.state);
      if ("error" in message) settle(call, rebuildError(message));
      else settle(call, null, toResponse(message, slot.bodies));
      this.dispatch();
    };
    let replaced = false;
    const replace = (reason: string, error: unknown = new Error(reason)) => {
      if (replaced) return;
      replaced = true;
      markFailed(new Error(reason));
      if (slot.current) settle(slot.current, error);
      slot.current = null;
      slot.bodies.failAll(reason);
      for (const stop of slot.topics.values()) stop();
      slot.topics.clear();
      slot.onClosed?.();
      if (this.closed) return;
      const index = this.slots.indexOf(slot);
      if (index !== -1) this.slots[index] = this.spawn();
    };
    slot.recycle = (reason, error) => {
      replace(reason, error);
      worker.terminate();
    };
    worker.addEventListener("error", (event) => {
      replace(`worker crashed: ${(event as ErrorEvent).message}`);
      worker.terminate();
    });
    worker.addEventListener("close", () => {
      if (this.slots.includes(slot)) replace("worker exited");
    });
    return slot;
  }
}

/** Resolves or rejects a call once. */
function settle(call: Call, error: unknown, response?: globalThis.Response): void {
  if (call.settled) return;
  call.settled = true;
  if (response !== undefined) call.resolve(response);
  else call.reject(error);
}

function toResponse(reply: WorkerReply, bodies: BodyProxies): globalThis.Response {
  const noBody = reply.status === 204 || reply.status === 304 || reply.status < 200;
  const body = reply.streamed ? bodies.stream(reply.id) : (reply.body as Uint8Array<ArrayBuffer> | null);
  return new globalThis.Response(noBody ? null : body, { status: reply.status, headers: reply.headers });
}

/** A call that could not be posted: its `request.state` holds something that cannot cross threads. */
function unsendable(error: unknown): Error {
  const reason = (error as Error)?.message ?? String(error);
  return new Error(
    `an offloaded request could not be sent to its Worker (${reason}): keep only data (no functions, class instances or handles) in request.state on offloaded routes, or drop offload`,
  );
}

function rebuildError(failure: WorkerFailure): Error {
  const { name, message, stack, status, headers, problem } = failure.error;
  if (status !== undefined) return new HttpError(status, problem ?? message, headers);
  return new WorkerHandlerError(name, message, stack);
}
