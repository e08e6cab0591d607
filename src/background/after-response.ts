/**
 * The dispatcher's hand-over: when a request left background tasks, start
 * them once its response is ready (src/background/tasks.ts), or, when its
 * body streams, once that stream is over (read to its end, failed, or
 * cancelled because the client went away). The dispatcher checks
 * `request.backgroundTasks` itself and calls here only when there are some,
 * so a request that left none never enters this file (docs/architecture.md).
 */
import type { Request } from "../http/request.ts";
import { requestPath } from "../http/request-target.ts";
import { copyResponse } from "../response/copy-response.ts";
import { isStreamed } from "../response/streamed.ts";
import { onStreamEnd } from "../stream/on-stream-end.ts";
import { startBackground } from "./tasks.ts";

type WebResponse = globalThis.Response;

/**
 * `response` with the request's tasks handed over: now, or for a streamed body when it is over
 * (the answer is then a copy whose body tells its end; headers and status are the same).
 */
export function tasksAfter(request: Request, response: WebResponse): WebResponse {
  const tasks = request.backgroundTasks;
  if (tasks === null || tasks.length === 0) return response;
  const body = isStreamed(response) ? response.body : null;
  if (body === null) {
    handOver(request);
    return response;
  }
  return copyResponse(response, { body: onStreamEnd(body, () => handOver(request)) });
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
