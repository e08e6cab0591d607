import type { BodySchema } from "../router/route.ts";

/**
 * Schemas of a route's JSON messages, checked at run time (`route.messages({ client, server })`):
 * each a Standard Schema (zod, valibot, arktype, …) or a `t` spec such as `t.object({...})`.
 */
export interface MessageSchemas<C = unknown, S = unknown> {
  /** What clients send: `ws.receiveJson()` returns the validated value, or throws `ValidationError`. */
  client?: BodySchema<C>;
  /** What the handler sends: `ws.sendJson(value)` validates before sending (a mismatch is the handler's bug). */
  server?: BodySchema<S>;
}
