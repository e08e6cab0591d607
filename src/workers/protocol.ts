import type { ParsedForm } from "../body/forms.ts";
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
}

export interface WorkerReply {
  id: number;
  status: number;
  headers: [string, string][];
  body: Uint8Array | null;
  session: SessionTransfer | null;
}

export interface WorkerFailure {
  id: number;
  error: { name: string; message: string; stack?: string; status?: number; headers?: Record<string, string> };
  session?: SessionTransfer | null;
}

/** Sent once by a Worker when the app file is loaded and its startup handlers ran (or failed). */
export interface WorkerReady {
  ready: true;
  routes: string[];
  error?: string;
}

export type WorkerMessage = WorkerReply | WorkerFailure | WorkerReady;

/** The Worker's `workerData`-like init, passed through the environment of the Worker. */
export const WORKER_MAIN_FILE_ENV = "WEBFW_WORKER_MAIN_FILE";
