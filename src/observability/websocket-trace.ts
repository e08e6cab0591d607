/**
 * Spans of WebSocket messages. A connection belongs to the trace of its
 * upgrade request: its handlers run in that context (spans they start are
 * children of the upgrade's server span), and each message received gets a
 * span `WS message /pattern` (kind CONSUMER), child of the upgrade span, from
 * its delivery until the handler asks for the next message (the time the
 * handler spent on it, in the pull model of `receive()`/`for await`), or until
 * the connection ends (`webfw.websocket.unread` when the handler never took it).
 */
import { type Context, context, type Span, SpanKind, type Tracer, trace } from "@opentelemetry/api";
import type { DispatchContext } from "../http/request-context.ts";
import type { WebSocketMessageTracer } from "./hooks.ts";
import { ATTR_HTTP_ROUTE } from "./http-attributes.ts";
import { incomingContext, spanOf } from "./server-span.ts";

export function webSocketTracer(
  tracer: Tracer,
  pattern: string,
  raw: globalThis.Request,
  requestContext: DispatchContext | null,
): WebSocketMessageTracer {
  // The upgrade's server span, in its request's context (the pipeline runs inside its trace context too).
  const upgradeSpan = spanOf(requestContext);
  const parent: Context = upgradeSpan ? trace.setSpan(context.active(), upgradeSpan) : incomingContext(raw);
  const name = `WS message ${pattern}`;
  const pending: Span[] = [];
  let current: Span | null = null;
  return {
    run: (fn) => context.with(parent, fn),
    delivered(message) {
      const binary = typeof message !== "string";
      pending.push(
        tracer.startSpan(
          name,
          {
            kind: SpanKind.CONSUMER,
            attributes: {
              [ATTR_HTTP_ROUTE]: pattern,
              "websocket.message.type": binary ? "binary" : "text",
              "messaging.message.body.size": binary ? message.byteLength : Buffer.byteLength(message),
            },
          },
          parent,
        ),
      );
    },
    asked() {
      current?.end();
      current = null;
    },
    taken() {
      current?.end();
      current = pending.shift() ?? null;
    },
    closed(code) {
      current?.end();
      current = null;
      for (const span of pending.splice(0)) {
        span.setAttribute("webfw.websocket.unread", true);
        span.setAttribute("webfw.websocket.close_code", code);
        span.end();
      }
    },
  };
}
