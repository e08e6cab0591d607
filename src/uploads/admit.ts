/**
 * The handler of a `{ body: "stream" }` route behind the app's upload gate (src/uploads/gate.ts):
 * admitted before the handler runs (auth and before-middlewares first, so a refused or
 * unauthenticated client holds nothing), released when the handler has settled, which is when
 * its upload is over (read, failed, or abandoned with the connection). Only these routes are
 * wrapped: every other route pays nothing.
 */
import type { Request } from "../http/request.ts";
import type { UploadGate } from "./gate.ts";
// Hands `request.parts()` its reader (src/http/request-services.ts): every streamed route passes here.
import "./request-parts.ts";

export function admitUploads(
  handler: (request: Request) => unknown,
  gate: UploadGate,
): (request: Request) => unknown {
  return (request) => {
    const ticket = gate.admit(request.raw);
    request.uploadTicket = ticket;
    let value: unknown;
    try {
      value = handler(request);
    } catch (error) {
      ticket.release();
      throw error;
    }
    if (value instanceof Promise) {
      return value.finally(() => ticket.release());
    }
    ticket.release();
    return value;
  };
}
