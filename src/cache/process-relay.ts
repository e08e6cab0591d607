/**
 * Invalidations of per-process stores (memory) under `--processes N` without Redis
 * (docs/caching.md#invalidation): the process that invalidates sends the tags to the supervisor
 * over the IPC channel Bun opens to each child, and the supervisor passes them to every other
 * child (src/process/supervisor.ts), as it does for metrics (src/observability/metrics-relay.ts).
 */

/** Child → supervisor → every other child: drop the entries carrying these tags. */
export interface CacheInvalidationMessage {
  webfwCache: "invalidate";
  tags: string[];
}

export function isCacheInvalidation(message: unknown): message is CacheInvalidationMessage {
  if (typeof message !== "object" || message === null) return false;
  const candidate = message as Partial<CacheInvalidationMessage>;
  return (
    candidate.webfwCache === "invalidate" &&
    Array.isArray(candidate.tags) &&
    candidate.tags.every((tag) => typeof tag === "string")
  );
}

/**
 * The supervisor's side: passes an invalidation from `from` to every other live child; false when
 * `message` is not one.
 */
export function forwardInvalidation(
  message: unknown,
  from: unknown,
  children: readonly ({ send(message: unknown): unknown } | undefined)[],
): boolean {
  if (!isCacheInvalidation(message)) return false;
  for (const child of children) {
    if (child === undefined || child === from) continue;
    try {
      child.send(message);
    } catch {
      // A child that is exiting: it has no cache left to drop.
    }
  }
  return true;
}

export interface ProcessRelay {
  publish(tags: string[]): void;
  listen(drop: (tags: string[]) => unknown): void;
  close(): void;
}

/** The child's side, or null when this process has no supervisor channel (not under `--processes`). */
export function joinProcessRelay(): ProcessRelay | null {
  const send = process.send?.bind(process);
  if (send === undefined) return null;
  let listener: ((message: unknown) => void) | null = null;
  return {
    publish(tags) {
      try {
        send({ webfwCache: "invalidate", tags } satisfies CacheInvalidationMessage);
      } catch {
        // The supervisor is gone: the server is stopping.
      }
    },
    listen(drop) {
      if (listener !== null) return;
      listener = (message) => {
        if (isCacheInvalidation(message)) void Promise.resolve(drop(message.tags)).catch(() => {});
      };
      process.on("message", listener);
      // The channel must not keep a stopping server alive.
      (process as { channel?: { unref?: () => void } }).channel?.unref?.();
    },
    close() {
      if (listener !== null) process.off("message", listener);
      listener = null;
    },
  };
}
