import { HttpError } from "../errors.ts";
import { absoluteUrl } from "../http/request-target.ts";
import type { Request } from "../request.ts";
import { RequestTimeoutError } from "../timeout.ts";
import type { WorkerCall, WorkerFailure, WorkerMessage, WorkerReply } from "./protocol.ts";
import { WORKER_MAIN_FILE_ENV } from "./protocol.ts";

type Pending = {
  request: Request;
  resolve: (response: globalThis.Response) => void;
  reject: (error: unknown) => void;
};

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
  ready: Promise<void>;
  /** Terminates the Worker, fails what it holds with `error`, and puts a new Worker in its place. */
  recycle: (reason: string, error?: unknown) => void;
}

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
 * main thread. Each Worker imports the app's main file in worker mode. A
 * handler that throws fails its request only; a Worker that dies fails its
 * in-flight requests (500) and is replaced.
 */
export class WorkerPool {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;
  // A compiled binary embeds the entry elsewhere; `webfw build` tells us where through this define.
  private readonly entry =
    process.env.WEBFW_WORKER_ENTRY ?? new URL("./worker-entry.ts", import.meta.url).href;

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

  /**
   * Runs the route's handler on the least busy Worker. With `deadlineMs`, a
   * handler still running then is stopped the only way a synchronous loop can
   * be: its Worker is terminated and replaced (its request gets the timeout
   * answer; calls queued behind it on that Worker fail the same way).
   */
  run(route: string, request: Request, deadlineMs = 0): Promise<globalThis.Response> {
    if (this.closed) return Promise.reject(new HttpError(503, "Service Unavailable"));
    let slot = this.slots[0] as Slot;
    for (const candidate of this.slots) if (candidate.pending.size < slot.pending.size) slot = candidate;
    const id = this.nextId++;
    const call: WorkerCall = {
      id,
      route,
      // A bare target (HTTP/1.0 without Host) is not a URL the Worker's `new Request` accepts.
      url: absoluteUrl(request.raw.url),
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
    };
    const answer = new Promise<globalThis.Response>((resolve, reject) => {
      slot.pending.set(id, { request, resolve, reject });
      try {
        slot.worker.postMessage(call);
      } catch (error) {
        slot.pending.delete(id);
        reject(error);
      }
    });
    if (!(deadlineMs > 0)) return answer;
    const timer = setTimeout(() => {
      if (slot.pending.has(id)) slot.recycle("handler exceeded its time limit", new RequestTimeoutError());
    }, deadlineMs);
    return answer.finally(() => clearTimeout(timer));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const slot of this.slots) {
      this.failAll(slot, new HttpError(503, "Service Unavailable"));
      slot.worker.terminate();
    }
  }

  private spawn(): Slot {
    const worker = new Worker(this.entry, {
      env: { ...process.env, [WORKER_MAIN_FILE_ENV]: this.mainFile },
    });
    const pending = new Map<number, Pending>();
    let markReady: () => void = () => {};
    let markFailed: (error: Error) => void = () => {};
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      markFailed = reject;
    });
    ready.catch(() => {});
    const slot: Slot = { worker, pending, ready, recycle: () => {} };
    worker.onmessage = (event: MessageEvent<WorkerMessage>) => {
      const message = event.data;
      if ("ready" in message) {
        if (message.error) markFailed(new Error(`worker could not load the app: ${message.error}`));
        else markReady();
        return;
      }
      const waiter = pending.get(message.id);
      if (!waiter) return;
      pending.delete(message.id);
      // A session the handler changed in the Worker comes back with the reply.
      if (message.session && waiter.request.session) waiter.request.session.absorb(message.session);
      if ("error" in message) waiter.reject(rebuildError(message));
      else waiter.resolve(toResponse(message));
    };
    const replace = (reason: string, error: unknown = new Error(reason)) => {
      markFailed(new Error(reason));
      this.failAll(slot, error);
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

  private failAll(slot: Slot, error: unknown): void {
    for (const waiter of slot.pending.values()) waiter.reject(error);
    slot.pending.clear();
  }
}

function toResponse(reply: WorkerReply): globalThis.Response {
  const noBody = reply.status === 204 || reply.status === 304 || reply.status < 200;
  return new globalThis.Response(noBody ? null : (reply.body as Uint8Array<ArrayBuffer> | null), {
    status: reply.status,
    headers: reply.headers,
  });
}

function rebuildError(failure: WorkerFailure): Error {
  const { name, message, stack, status, headers } = failure.error;
  if (status !== undefined) return new HttpError(status, message, headers);
  return new WorkerHandlerError(name, message, stack);
}

/** Synchronous handlers are offloaded; an `async` function is I/O-bound and stays on the main thread. */
export function isSyncHandler(fn: (...args: never[]) => unknown): boolean {
  const kind = fn.constructor?.name;
  return kind !== "AsyncFunction" && kind !== "AsyncGeneratorFunction" && kind !== "GeneratorFunction";
}
