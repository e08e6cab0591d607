import type { Server } from "bun";
import { logger } from "../log/logger.ts";
import type { RedisRelay } from "../websocket/redis-relay.ts";

/** Something that wants the messages of a topic in this process (an SSE stream, …). */
type Listener = (text: string) => void;

/** Where a Worker's hub sends what it cannot do itself (see `TopicHub.upstream`). */
export interface TopicUpstream {
  publish(topic: string, text: string): void;
  subscribe(topic: string): void;
  unsubscribe(topic: string): void;
}

/** Messages a slow subscriber may have waiting before the oldest are dropped. */
const MAX_QUEUED = 1000;

/**
 * Publish/subscribe for the whole app (issue #14): `app.publish(topic, data)`
 * from any handler reaches the WebSocket clients subscribed to `topic`
 * (Bun's pub/sub), this process's `app.subscribe(topic)` streams (SSE), and,
 * with `configureBroadcast`, every other process and machine through the
 * Redis relay (which delivers to their WebSockets and streams the same way).
 * A WebSocket route's own `broadcast` topic is one of these topics
 * (`ws.topic`), so it can be published to from HTTP handlers as well.
 */
export class TopicHub {
  private readonly listeners = new Map<string, Set<Listener>>();
  private server: Server<unknown> | null = null;
  private relay: RedisRelay | null = null;
  /**
   * In a handler Worker: the main thread, which owns the server and the relay. Publishes go
   * there, and the Worker asks it for the topics its own subscribers want (`deliverHere`).
   */
  upstream: TopicUpstream | null = null;

  /** Before listening: connects the Redis relay when `configureBroadcast` was called. */
  async start(broadcast: { redisUrl: string; channel: string } | null): Promise<void> {
    if (broadcast === null) return;
    // The relay (and its Redis client) loads only for an app that configured broadcast.
    const { RedisRelay } = await import("../websocket/redis-relay.ts");
    this.relay = new RedisRelay(broadcast.redisUrl, broadcast.channel, (error, where) =>
      logger.error("unhandled error in topic delivery", { where, error }),
    );
    await this.relay.start((topic, text) => this.deliver(topic, text));
  }

  /** After listening: the server whose WebSocket clients get the messages. */
  attach(server: Server<unknown>): void {
    this.server = server;
  }

  stop(): void {
    this.relay?.stop();
    this.relay = null;
    this.server = null;
  }

  /** Sends `text` to every subscriber of `topic`, here and (with Redis) in every other process. */
  publish(topic: string, text: string): void {
    if (this.upstream) {
      this.upstream.publish(topic, text);
      return;
    }
    this.deliver(topic, text);
    this.relay?.publish(topic, text);
  }

  /** @internal A message the main thread sends to this Worker's subscribers. */
  deliverHere(topic: string, text: string): void {
    const listeners = this.listeners.get(topic);
    if (listeners) for (const listener of listeners) listener(text);
  }

  /**
   * Calls `listener` with every message of `topic` in this process until the returned function
   * is called (the pool uses it to feed a Worker's subscribers; `subscribe` is built on it).
   */
  listen(topic: string, listener: Listener): () => void {
    let set = this.listeners.get(topic);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(topic, set);
      this.upstream?.subscribe(topic);
    }
    set.add(listener);
    const own = set;
    return () => {
      own.delete(listener);
      if (own.size === 0 && this.listeners.get(topic) === own) {
        this.listeners.delete(topic);
        this.upstream?.unsubscribe(topic);
      }
    };
  }

  /** This process's subscribers only (what arrives from the relay). */
  private deliver(topic: string, text: string): void {
    this.server?.publish(topic, text);
    const listeners = this.listeners.get(topic);
    if (listeners) for (const listener of listeners) listener(text);
  }

  /**
   * The messages of `topic` from now on, until `signal` aborts or the loop
   * stops (`sse(app.subscribe("notes", request.signal))`). A consumer that
   * falls more than 1000 messages behind loses the oldest ones.
   */
  subscribe(topic: string, signal?: AbortSignal): AsyncIterableIterator<string> {
    const queue: string[] = [];
    let wake: (() => void) | null = null;
    let done = signal?.aborted === true;
    const listener: Listener = (text) => {
      if (queue.length >= MAX_QUEUED) queue.shift();
      queue.push(text);
      wake?.();
    };
    const stop = this.listen(topic, listener);
    const finish = () => {
      done = true;
      stop();
      wake?.();
    };
    signal?.addEventListener("abort", finish, { once: true });
    const iterator: AsyncIterableIterator<string> = {
      [Symbol.asyncIterator]: () => iterator,
      next: async () => {
        while (queue.length === 0 && !done) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = null;
        }
        if (queue.length > 0) return { value: queue.shift() as string, done: false };
        return { value: undefined, done: true };
      },
      return: async () => {
        finish();
        signal?.removeEventListener("abort", finish);
        return { value: undefined, done: true };
      },
    };
    return iterator;
  }

  /** Topics with in-process subscribers (the dashboard lists them). */
  topicNames(): string[] {
    return [...this.listeners.keys()];
  }

  /** How many in-process subscribers a topic has (for tests and metrics). */
  subscriberCount(topic: string): number {
    return this.listeners.get(topic)?.size ?? 0;
  }
}

/** What `publish` sends: text as is, bytes as UTF-8, anything else as JSON. */
export function topicText(data: unknown): string {
  if (typeof data === "string") return data;
  if (data instanceof Uint8Array) return new TextDecoder().decode(data);
  return JSON.stringify(data);
}
