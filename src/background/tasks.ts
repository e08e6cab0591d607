/**
 * Background tasks (`request.background(fn)`, docs/events.md): work a handler
 * leaves for after its response. The dispatcher hands the tasks over once the
 * response is ready for Bun; they start on the next turn of the event loop,
 * after Bun has written the response, in the thread that ran the handler (a
 * Worker for offloaded routes). A request's tasks run one after the other, in
 * order; tasks of different requests run side by side. A failing task is
 * logged with the request id and never reaches the client (its answer is
 * already sent). `drainBackground` lets shutdown wait for the running ones.
 */
import { logger } from "../log/logger.ts";

/** What a handler may leave for later: sync or async. */
export type BackgroundTask = () => unknown;

/** What a task's failure is logged with. */
export interface TaskOwner {
  id: string;
  method: string;
  path: string;
}

const running = new Set<Promise<void>>();

/** Starts `tasks` after the current turn (the response is written by then). */
export function startBackground(tasks: BackgroundTask[], owner: () => TaskOwner): void {
  const done = new Promise<void>((resolve) => {
    setImmediate(() => {
      void runInOrder(tasks, owner).finally(resolve);
    });
  });
  running.add(done);
  void done.finally(() => running.delete(done));
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

/** Tasks of this thread still running (or about to start). */
export function runningBackground(): number {
  return running.size;
}

/**
 * Waits until every running task has finished, or `timeoutMs` has passed; true when all finished.
 * Tasks started while waiting are waited for too.
 */
export async function drainBackground(timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + Math.max(0, timeoutMs);
  while (running.size > 0) {
    const left = deadline - performance.now();
    if (left <= 0) {
      logger.warning("background tasks still running at shutdown", { tasks: running.size });
      return false;
    }
    await Promise.race([Promise.allSettled([...running]), Bun.sleep(left)]);
  }
  return true;
}
