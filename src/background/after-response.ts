/**
 * The dispatcher's hand-over: when a request left background tasks, start
 * them once its response is ready (src/background/tasks.ts). A request that
 * left none costs one field check.
 */
import type { Request } from "../http/request.ts";
import { requestPath } from "../http/request-target.ts";
import { startBackground } from "./tasks.ts";

type WebResponse = globalThis.Response;

export function afterResponse<R extends WebResponse | Promise<WebResponse>>(
  request: Request,
  response: R,
): R {
  if (request.backgroundTasks === null) return response;
  if (response instanceof Promise) {
    return response.then((ready) => {
      handOver(request);
      return ready;
    }) as R;
  }
  handOver(request);
  return response;
}

/** Starts the request's tasks (once: the list is taken from the request). */
export function handOver(request: Request): void {
  const tasks = request.backgroundTasks;
  if (tasks === null || tasks.length === 0) return;
  request.backgroundTasks = null;
  startBackground(tasks, () => ({
    id: request.id,
    method: request.method,
    path: requestPath(request.raw.url),
  }));
}
