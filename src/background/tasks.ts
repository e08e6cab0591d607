/**
 * Background tasks (`request.background(fn)`, docs/events.md): work a handler
 * leaves for after its response. The dispatcher hands the tasks over once the
 * response is ready for Bun; they start on the next turn of the event loop,
 * after Bun has written the response, in the thread that ran the handler (a
 * Worker for offloaded routes). A request's tasks run one after the other, in
 * order; tasks of different requests run side by side, at most
 * `maxConcurrent` requests' at once in a thread, the next `maxQueued` waiting
 * in arrival order, and past that the arriving request's tasks are dropped
 * (docs/events.md#bounds says why). A failing task is logged with the request
 * id and never reaches the client (its answer is already sent).
 * `drainBackground` lets shutdown wait for the running and waiting ones.
 */
import { logger } from "../log/logger.ts";
import {
  DEFAULT_BACKGROUND_CONCURRENT,
  DEFAULT_BACKGROUND_QUEUED,
  type ResolvedBackgroundBounds,
} from "./bounds.ts";

/** What a handler may leave for later: sync or async. */
export type BackgroundTask = () => unknown;

/** What a task's failure is logged with. */
export interface TaskOwner {
  id: string;
  method: string;
  path: string;
}

interface Job {
  tasks: BackgroundTask[];
  owner: () => TaskOwner;
}

let bounds: ResolvedBackgroundBounds = {
  maxConcurrent: DEFAULT_BACKGROUND_CONCURRENT,
  maxQueued: DEFAULT_BACKGROUND_QUEUED,
};
/** Requests' task lists running now (or about to start, on the next turn). */
let running = 0;
/** Waiting task lists, oldest first: `queue[head]` is next (an index, not `shift()`: O(1)). */
let queue: (Job | undefined)[] = [];
let head = 0;
/** Task lists dropped because the queue was full, since start (a metrics counter). */
let dropped = 0;
/** Resolvers of `drainBackground` calls, told whenever a task list ends. */
const idleWaiters = new Set<() => void>();

/** The bounds of this thread (the build and each Worker set them from the app's options). */
export function configureBackground(next: ResolvedBackgroundBounds): void {
  bounds = next;
}

/** Starts `tasks` after the current turn (the response is written by then), or queues or drops them. */
export function startBackground(tasks: BackgroundTask[], owner: () => TaskOwner): void {
  // The one counter a request with tasks pays.
  if (running < bounds.maxConcurrent) {
    running++;
    setImmediate(run, { tasks, owner });
    return;
  }
  if (queue.length - head < bounds.maxQueued) {
    queue.push({ tasks, owner });
    return;
  }
  dropped++;
  reportDropped(owner());
}

function run(job: Job): void {
  void runInOrder(job.tasks, job.owner).finally(next);
}

/** One task list ended: the oldest waiting one takes its slot. */
function next(): void {
  const job = head < queue.length ? queue[head] : undefined;
  if (job !== undefined) {
    queue[head++] = undefined;
    // Compact once the consumed front outgrows what is left (amortised O(1)).
    if (head > 1024 && head * 2 > queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
    run(job);
  } else {
    running--;
  }
  for (const wake of idleWaiters) wake();
}

async function runInOrder(tasks: BackgroundTask[], owner: () => TaskOwner): Promise<void> {
  for (const task of tasks) {
    try {
      await task();
    } catch (error) {
      const { id, method, path } = owner();
      logger.error("background task failed", { method, path, request_id: id, error });
    }
  }
}

/** At most one warning per this many ms; the next one says how many were dropped in between. */
const DROP_LOG_EVERY_MS = 10_000;
let lastDropLog = Number.NEGATIVE_INFINITY;
let droppedSinceLog = 0;

function reportDropped(owner: TaskOwner): void {
  droppedSinceLog++;
  const now = performance.now();
  if (now - lastDropLog < DROP_LOG_EVERY_MS) return;
  lastDropLog = now;
  logger.warning("background tasks dropped: the queue is full", {
    dropped: droppedSinceLog,
    running,
    queued: queue.length - head,
    max_concurrent: bounds.maxConcurrent,
    max_queued: bounds.maxQueued,
    method: owner.method,
    path: owner.path,
    request_id: owner.id,
  });
  droppedSinceLog = 0;
}

/** Task lists of this thread running (or about to start) and waiting; dropped since start. */
export function backgroundStats(): { running: number; queued: number; dropped: number } {
  return { running, queued: queue.length - head, dropped };
}

/** Task lists of this thread still running or waiting. */
export function runningBackground(): number {
  return running + queue.length - head;
}

/**
 * Waits until every running and waiting task has finished, or `timeoutMs` has passed; true when
 * all finished. Tasks started while waiting are waited for too.
 */
export async function drainBackground(timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + Math.max(0, timeoutMs);
  while (runningBackground() > 0) {
    const left = deadline - performance.now();
    if (left <= 0) {
      logger.warning("background tasks still running at shutdown", {
        tasks: running,
        queued: queue.length - head,
      });
      return false;
    }
    let wake: () => void = () => {};
    const ended = new Promise<void>((resolve) => {
      wake = resolve;
    });
    idleWaiters.add(wake);
    await Promise.race([ended, Bun.sleep(left)]);
    idleWaiters.delete(wake);
  }
  return true;
}
