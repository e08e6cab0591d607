/**
 * Invalidations of per-process stores (memory) sent to every other process and machine over Redis
 * pub/sub (docs/caching.md#invalidation). A process skips its own messages (it already dropped the
 * entries); a message that is not one of ours is ignored.
 */
import type { RedisClient } from "bun";
import { logger } from "../log/logger.ts";
import { closeClients, lastingClient, subscribeAfresh } from "../topics/redis-connection.ts";

const CHANNEL = "webfw:cache:invalidate";

export class InvalidationRelay {
  /** This process's id in its messages. */
  private readonly id = crypto.randomUUID();
  private publisher: RedisClient | null = null;
  private subscriber: RedisClient | null = null;
  private closed = false;

  constructor(private readonly url: string) {}

  async publish(tags: string[]): Promise<void> {
    this.publisher ??= lastingClient(this.url, () => this.closed);
    if (!this.publisher.connected) await this.publisher.connect();
    await this.publisher.publish(CHANNEL, JSON.stringify({ from: this.id, tags }));
  }

  listen(drop: (tags: string[]) => unknown): void {
    if (this.subscriber !== null) return;
    const subscribe = (): void => {
      if (this.closed || this.subscriber === null) return;
      subscribeAfresh(this.subscriber, CHANNEL, (message) => {
        const tags = tagsOf(message, this.id);
        if (tags !== null) void Promise.resolve(drop(tags)).catch(() => {});
      }).catch((error: unknown) =>
        logger.warning("cache invalidations from other processes are not heard", { error }),
      );
    };
    // Subscribed again after every reconnection (the server forgot the subscription).
    this.subscriber = lastingClient(
      this.url,
      () => this.closed,
      () => setTimeout(subscribe, 2100).unref(),
    );
    this.subscriber
      .connect()
      .then(subscribe)
      .catch((error: unknown) =>
        logger.warning("cache invalidations from other processes are not heard", { error }),
      );
  }

  close(): void {
    this.closed = true;
    closeClients(this.publisher, this.subscriber);
    this.publisher = null;
    this.subscriber = null;
  }
}

function tagsOf(message: string, self: string): string[] | null {
  try {
    const parsed = JSON.parse(message) as { from?: unknown; tags?: unknown };
    if (parsed.from === self || !Array.isArray(parsed.tags)) return null;
    return parsed.tags.every((tag) => typeof tag === "string") ? (parsed.tags as string[]) : null;
  } catch {
    return null;
  }
}
