/**
 * The one per-request context (docs/architecture.md, "One request"): what the layers around a
 * route and the features inside it know of one request beyond Bun's `Request`. Every layer hands
 * it on to the next; the handler's `Request` carries it (`request.context`). A feature keeps its
 * per-request data in a slot of its own (`ContextSlot`), so neither this file nor the core names
 * the features, and nothing is keyed by Bun's request (a WeakMap costs ~100 ns an operation, a
 * slot an array read).
 */

/** One part of the request-target check: a 400 message or `null`. */
export type TargetCheck = (raw: globalThis.Request) => string | null;

/**
 * What a host-blind route leaves of the request-target check until its handler first looks
 * (src/serve/host-blind.ts): the Host part runs on the first read of the URL or the headers, the
 * target part (a `#`) on the first read of the URL or the query. The query never shows the Host,
 * so reading it costs no header read.
 */
export interface PendingCheck {
  readonly host: TargetCheck | null;
  readonly target: TargetCheck | null;
}

let slotCount = 0;

export class DispatchContext {
  /** What a host-blind route leaves of the request-target check to the handler's first look. */
  readonly pending: PendingCheck | undefined;
  /**
   * One context for many requests (Bun's table hands a fixed one to host-blind routes): it holds
   * no slot, so a layer that keeps data makes the request its own (`contextOf`).
   */
  readonly shared: boolean;
  /** @internal The slots' values by slot index; made on the first write. */
  values: unknown[] | null = null;

  constructor(pending?: PendingCheck, shared = false) {
    this.pending = pending;
    this.shared = shared;
  }
}

/** The request's own context: the one it has, or a new one that keeps its pending check. */
export function contextOf(context: DispatchContext | null | undefined): DispatchContext {
  if (context !== undefined && context !== null && !context.shared) return context;
  return new DispatchContext(context?.pending);
}

/** One feature's per-request value in the context (made once, at module load). */
export class ContextSlot<T> {
  private readonly index = slotCount++;

  get(context: DispatchContext | null | undefined): T | undefined {
    return context?.values?.[this.index] as T | undefined;
  }

  /** `context` must be the request's own (`contextOf`), never a shared one. */
  set(context: DispatchContext, value: T): void {
    if (context.shared) throw new Error("a shared dispatch context holds no per-request value");
    context.values ??= [];
    context.values[this.index] = value;
  }
}
