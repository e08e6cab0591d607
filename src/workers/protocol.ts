import type { ParsedForm } from "../body/forms.ts";
import type { ProblemInit } from "../problem/details.ts";
import type { SessionTransfer } from "../sessions/session.ts";
/** Messages between the main thread and a handler Worker: compact, structured-clone friendly. */

export interface WorkerCall {
  id: number;
  /** `METHOD /pattern` of the route whose handler runs. */
  route: string;
  url: string;
  method: string;
  headers: [string, string][];
  body: Uint8Array;
  pathParams: Record<string, string>;
  args: Record<string, unknown>;
  parsedBody: unknown;
  identityClaims: Record<string, unknown> | null;
  ipAddr: string | null;
  form: ParsedForm | null;
  session: SessionTransfer | null;
  /** `request.state` as the before-middlewares left it (data only: it is structured-cloned). */
  state: Record<string, unknown> | null;
  /** `request.id` on the main thread: the handler in the Worker sees the same id. */
  requestId: string;
  /** `request.cspNonce` on the main thread, so an offloaded page uses the nonce of its CSP header. */
  cspNonce?: string;
  /** The request's trace context (`traceparent`, `tracestate`, `baggage`) when tracing is on. */
  trace?: Record<string, string>;
}

export interface WorkerReply {
  id: number;
  status: number;
  headers: [string, string][];
  /** The whole body, when the handler's body was complete; `null` for no body or a streamed one. */
  body: Uint8Array | null;
  /** The body is still being produced: the main thread pulls it chunk by chunk (`WorkerPull`). */
  streamed: boolean;
  session: SessionTransfer | null;
  /** `request.state` after the handler, merged back so after-middlewares see what it set. */
  state: Record<string, unknown> | null;
}

export interface WorkerFailure {
  id: number;
  error: {
    name: string;
    message: string;
    stack?: string;
    status?: number;
    headers?: Record<string, string>;
    /** The problem details members of an `HttpError` (`type`, `title`, …), rebuilt on the main thread. */
    problem?: ProblemInit;
  };
  session?: SessionTransfer | null;
  state?: Record<string, unknown> | null;
}

/** Sent once by a Worker when the app file is loaded and its startup handlers ran (or failed). */
export interface WorkerReady {
  ready: true;
  routes: string[];
  error?: string;
}

/** One step of a streamed body, answering a `WorkerPull`. */
export type WorkerChunk =
  | { id: number; chunk: Uint8Array }
  | { id: number; end: true }
  | { id: number; streamError: string };

/** The Worker ran its shutdown handlers (errors are reported, not thrown). */
export interface WorkerClosed {
  closed: true;
  errors: string[];
}

/** Worker → main thread: `app.publish(topic, data)` called by an offloaded handler (src/topics/hub.ts). */
export interface WorkerPublish {
  publish: [topic: string, text: string];
}

/** Worker → main thread: a subscriber in the Worker wants (or no longer wants) a topic's messages. */
export type WorkerTopicInterest = { subscribeTopic: string } | { unsubscribeTopic: string };

export type WorkerMessage =
  | WorkerReply
  | WorkerFailure
  | WorkerReady
  | WorkerChunk
  | WorkerClosed
  | WorkerPublish
  | WorkerTopicInterest;

/** Main thread to Worker, besides calls: pull or cancel a streamed body, run shutdown handlers. */
export type WorkerControl =
  | { pull: number }
  | { cancel: number }
  | { shutdown: true }
  | { topicMessage: [topic: string, text: string] };

/** The Worker's `workerData`-like init, passed through the environment of the Worker. */
export const WORKER_MAIN_FILE_ENV = "WEBFW_WORKER_MAIN_FILE";

/** Bodies up to this size are sent whole with the reply; larger or unfinished ones are streamed. */
export const WHOLE_BODY_LIMIT = 1 << 20;
