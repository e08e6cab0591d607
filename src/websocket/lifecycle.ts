import { describeIssue } from "../args/validate-json.ts";
import { BadRequestError, HttpError, ValidationError, WebSocketDisconnect } from "../response/errors.ts";
import type { WebSocketDeps, WebSocketRoute } from "./route.ts";
import { isSendableCloseCode, type WebSocket } from "./websocket.ts";

export type WebSocketErrorLogger = (error: unknown, where: string) => void;

/**
 * One connection from open to end: connect handlers (a returned value is the
 * first message; closing refuses), then the handler; its return closes with
 * 1000. Errors never escape: they become close codes (see `closeOnError`).
 */
export async function runConnection(
  ws: WebSocket,
  route: WebSocketRoute,
  log: WebSocketErrorLogger,
): Promise<void> {
  const deps = depsOf(ws);
  try {
    for (const connect of route.connectHandlers) {
      const greeting = await connect(ws, deps);
      if (!ws.isOpen) return;
      if (greeting !== undefined && greeting !== null) {
        await (typeof greeting === "string" ? ws.sendText(greeting) : ws.sendJson(greeting));
      }
    }
    if (!ws.isOpen) return;
    await route.handler(ws, deps);
    await ws.close(1000);
  } catch (error) {
    await closeOnError(ws, error, `WebSocket ${route.path}`, log);
  }
}

/** The close handlers, each isolated: one that throws is logged and the next still runs. */
export async function runCloseHandlers(
  ws: WebSocket,
  route: WebSocketRoute,
  log: WebSocketErrorLogger,
): Promise<void> {
  const deps = depsOf(ws);
  for (const handler of route.closeHandlers) {
    try {
      await handler(ws, deps);
    } catch (error) {
      log(error, `onClose of WebSocket ${route.path}`);
    }
  }
}

/**
 * Maps an error that ended a handler to a close code: a disconnect ends it
 * quietly; bad client input (`BadRequestError`, e.g. invalid JSON, or a
 * `ValidationError` from a message schema) closes with 1007, another 4xx
 * `HttpError` with 1008, both with the message (the first issue) as reason;
 * anything else is logged and closes with 1011 without details.
 */
export async function closeOnError(
  ws: WebSocket,
  error: unknown,
  where: string,
  log: WebSocketErrorLogger,
): Promise<void> {
  if (!ws.isOpen) {
    if (!(error instanceof WebSocketDisconnect)) log(error, where);
    return;
  }
  if (error instanceof WebSocketDisconnect) {
    await ws.close(isSendableCloseCode(error.code) ? error.code : 1000, error.reason);
  } else if (error instanceof BadRequestError) {
    await ws.close(1007, error.message);
  } else if (error instanceof ValidationError) {
    // A message that does not match the route's client schema: inconsistent payload, as bad JSON is.
    await ws.close(1007, closeReason(error));
  } else if (error instanceof HttpError && error.status < 500) {
    await ws.close(1008, error.message);
  } else {
    log(error, where);
    await ws.close(1011, "Internal Error");
  }
}

function depsOf(ws: WebSocket): WebSocketDeps {
  return { globalDependencies: ws.globalDependencies, routerDependencies: ws.routerDependencies };
}

/** A close frame's reason holds at most 123 bytes (RFC 6455 §5.5). */
const MAX_REASON_BYTES = 123;

/** `invalid message: text: Required (+2 more)`, cut to what a close frame holds. */
function closeReason(error: ValidationError): string {
  const [first, ...rest] = error.issues;
  const issue = first === undefined ? "" : describeIssue(first);
  const reason = `invalid message: ${issue}${rest.length > 0 ? ` (+${rest.length} more)` : ""}`;
  const bytes = new TextEncoder().encode(reason);
  if (bytes.byteLength <= MAX_REASON_BYTES) return reason;
  // Cut on a character boundary: a reason must be valid UTF-8.
  return `${new TextDecoder().decode(bytes.subarray(0, MAX_REASON_BYTES - 3)).replace(/\uFFFD$/, "")}...`;
}
