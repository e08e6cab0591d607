/**
 * The main thread's side of a body a Worker streams (src/workers/run-call.ts):
 * a `ReadableStream` that asks the Worker for one chunk each time the
 * response's reader wants one, so the producer in the Worker runs no faster
 * than the client reads, and a client that goes away cancels the producer.
 */
import type { WorkerChunk, WorkerControl } from "./protocol.ts";

interface Waiter {
  controller: ReadableStreamDefaultController<Uint8Array>;
  done: () => void;
}

export class BodyProxies {
  private readonly waiting = new Map<number, Waiter>();
  private readonly open = new Set<number>();

  constructor(private readonly send: (control: WorkerControl) => void) {}

  /** The body of call `id`, pulled from the Worker. */
  stream(id: number): ReadableStream<Uint8Array> {
    this.open.add(id);
    return new ReadableStream<Uint8Array>(
      {
        pull: (controller) =>
          new Promise<void>((done) => {
            if (!this.open.has(id)) {
              controller.error(new Error("the Worker streaming this body is gone"));
              done();
              return;
            }
            this.waiting.set(id, { controller, done });
            this.send({ pull: id });
          }),
        cancel: () => {
          this.open.delete(id);
          this.waiting.delete(id);
          this.send({ cancel: id });
        },
      },
      { highWaterMark: 0 },
    );
  }

  /** A chunk, the end or an error arrived from the Worker. */
  deliver(step: WorkerChunk): void {
    const waiter = this.waiting.get(step.id);
    if (!waiter) return;
    this.waiting.delete(step.id);
    if ("chunk" in step) waiter.controller.enqueue(step.chunk);
    else {
      this.open.delete(step.id);
      if ("end" in step) waiter.controller.close();
      else waiter.controller.error(new Error(`streamed body failed in the Worker: ${step.streamError}`));
    }
    waiter.done();
  }

  /** The Worker died or was replaced: every body it was streaming fails (the client sees a cut). */
  failAll(reason: string): void {
    for (const [id, waiter] of this.waiting) {
      waiter.controller.error(new Error(reason));
      waiter.done();
      this.open.delete(id);
    }
    this.waiting.clear();
    this.open.clear();
  }
}
