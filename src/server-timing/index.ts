/**
 * `Server-Timing` (W3C Server Timing; docs/observability.md, "Server-Timing"): the request's
 * `total`, the `handler`'s own time, and the entries the application records with `timing()`
 * and `timed()` (those are spans too when tracing is on). Built only when `serverTiming` is on
 * for the build (src/server-timing/mount.ts); otherwise no layer exists and `timing()`/`timed()` are a
 * context-slot miss.
 */
import type { Request } from "../http/request.ts";
import { ContextSlot, contextOf } from "../http/request-context.ts";
import { isToken } from "../http/token.ts";
import type { TracingHooks } from "../observability/hooks.ts";
import { withHeader } from "../response/copy-response.ts";
import type { Dispatcher, RoutePlan } from "../serve/dispatch.ts";

interface Entry {
  name: string;
  dur: number;
  desc: string | undefined;
}

class Timings {
  readonly entries: Entry[] = [];
  constructor(readonly hooks: TracingHooks | null) {}

  header(total: number): string {
    let value = `total;dur=${total.toFixed(1)}`;
    for (const { name, dur, desc } of this.entries) {
      value += `, ${name};dur=${dur.toFixed(1)}`;
      if (desc !== undefined) value += `;desc="${desc}"`;
    }
    return value;
  }
}

/** The request's timings, in its context (src/http/request-context.ts). */
const TIMINGS = new ContextSlot<Timings>();

/** Whether the build sends `Server-Timing`: `true` always, `"dev"` only in development builds. */
export function serverTimingOn(setting: boolean | "dev", dev: boolean): boolean {
  return setting === true || (setting === "dev" && dev);
}

/** The layer: the clock starts when the request reaches webfw's dispatcher, and stops at its answer. */
export function withServerTiming(dispatcher: Dispatcher, hooks: TracingHooks | null): Dispatcher {
  return (raw, server, params, context) => {
    const started = performance.now();
    const timings = new Timings(hooks);
    const own = contextOf(context);
    TIMINGS.set(own, timings);
    const finish = (response: globalThis.Response) =>
      withHeader(response, "server-timing", timings.header(performance.now() - started));
    const result = dispatcher(raw, server, params, own);
    return result instanceof Promise ? result.then(finish) : finish(result);
  };
}

/** Times the route's handler (inline or on a Worker, with the transfer) as the `handler` entry. */
export function timeHandler(plan: RoutePlan): void {
  const inner = plan.invoke ?? plan.handler;
  const timed = (request: Request): unknown => {
    const timings = TIMINGS.get(request.context);
    if (timings === undefined) return inner(request);
    const started = performance.now();
    const record = () => {
      timings.entries.push({ name: "handler", dur: performance.now() - started, desc: undefined });
    };
    let value: unknown;
    try {
      value = inner(request);
    } catch (error) {
      record();
      throw error;
    }
    if (value instanceof Promise) return value.finally(record);
    record();
    return value;
  };
  if (plan.invoke !== undefined) plan.invoke = timed;
  else plan.handler = timed;
}

function checkedName(name: string, description: string | undefined): string | undefined {
  if (!isToken(name)) throw new TypeError(`Server-Timing metric name ${JSON.stringify(name)} is not a token`);
  // A quoted-string: no quotes, backslashes or control characters.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is removed here
  return description?.replace(/["\\\x00-\x1F\x7F]/g, "");
}

/**
 * Adds an entry to the request's `Server-Timing` header (milliseconds). Does nothing when
 * `serverTiming` is off for this app.
 */
export function timing(request: Request, name: string, durationMs: number, description?: string): void {
  const timings = TIMINGS.get(request.context);
  if (timings === undefined) return;
  timings.entries.push({ name, dur: durationMs, desc: checkedName(name, description) });
}

/**
 * Runs `fn` and records how long it took as the entry `name` (also when it throws); with
 * tracing on it is a span named `name` too, a child of the request's server span.
 */
export async function timed<T>(
  request: Request,
  name: string,
  fn: () => T | Promise<T>,
  description?: string,
): Promise<T> {
  const timings = TIMINGS.get(request.context);
  if (timings === undefined) return fn();
  const desc = checkedName(name, description);
  const started = performance.now();
  try {
    return timings.hooks === null
      ? await fn()
      : await timings.hooks.inSpan(name, {}, async () => fn(), request.context);
  } finally {
    timings.entries.push({ name, dur: performance.now() - started, desc });
  }
}
