/**
 * The `status` route option (docs/responses.md, "The success status"): the status a
 * handler's value is answered with unless the value chooses one itself (a webfw or
 * Web `Response`, a `[value, status]` pair, a dictionary response). OpenAPI documents
 * the same status (src/openapi/responses.ts), so the document and the server agree.
 */
import type { Request } from "../http/request.ts";
import { isDictionaryResponse, isStatusPair } from "./convert.ts";
import { Response } from "./response.ts";

type Handler = (request: Request) => unknown;

/** `handler` answering with `status` by default: its value becomes `[value, status]`. */
export function withDefaultStatus(handler: Handler, status: number | undefined): Handler {
  if (status === undefined) return handler;
  const apply = (value: unknown) => (choosesStatus(value) ? value : [value, status]);
  return (request) => {
    const value = handler(request);
    const thenable = typeof (value as { then?: unknown } | null)?.then === "function";
    return thenable ? Promise.resolve(value).then(apply) : apply(value);
  };
}

function choosesStatus(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (value instanceof globalThis.Response || value instanceof Response) return true;
  if (Array.isArray(value)) return isStatusPair(value);
  return isDictionaryResponse(value);
}

/** Checks the option when the app is built: an integer status code 100-599. */
export function checkStatusOption(status: unknown, where: string): number | undefined {
  if (status === undefined) return undefined;
  if (typeof status !== "number" || !Number.isInteger(status) || status < 100 || status > 599) {
    throw new TypeError(`status of ${where} must be an integer status code (100-599), got ${String(status)}`);
  }
  return status;
}
