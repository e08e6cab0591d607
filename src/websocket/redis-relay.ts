import { RedisClient } from "bun";
import type { WebSocketErrorLogger } from "./lifecycle.ts";

/** Delivers a broadcast to this process's clients of a topic. */
export type LocalDelivery = (topic: string, text: string) => void;

/**
 * Carries broadcasts between processes over one Redis pub/sub channel (Bun's
 * built-in client: one connection publishes, a duplicate subscribes, since a
 * subscribed Redis connection can do nothing else). Each process tags what it
 * publishes with its own id and ignores its own messages when they come back:
 * its local clients already got them, straight from Bun's pub/sub.
 */
export class RedisRelay {
  /** This process's id on the channel. */
  readonly origin: string = crypto.randomUUID();
  private publisher: RedisClient | null = null;
  private subscriber: RedisClient | null = null;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly log: WebSocketErrorLogger,
  ) {}

  /** Connects and subscribes; rejects (and `start()` of the app fails) when Redis cannot be reached. */
  async start(deliver: LocalDelivery): Promise<void> {
    const publisher = new RedisClient(this.url);
    try {
      await publisher.connect();
      const subscriber = await publisher.duplicate();
      this.subscriber = subscriber;
      await subscriber.subscribe(this.channel, (message) => this.receive(message, deliver));
    } catch (error) {
      publisher.close();
      this.subscriber?.close();
      this.subscriber = null;
      throw new Error(`WebSocket broadcast: cannot use Redis at ${redactUrl(this.url)}: ${(error as Error).message}`);
    }
    this.publisher = publisher;
  }

  /** Sends a broadcast to the other processes (fire and forget: local delivery never waits for Redis). */
  publish(topic: string, text: string): void {
    const publisher = this.publisher;
    if (!publisher) return;
    publisher.publish(this.channel, JSON.stringify([this.origin, topic, text])).catch((error: unknown) => {
      this.log(error, "WebSocket broadcast through Redis");
    });
  }

  stop(): void {
    this.subscriber?.close();
    this.publisher?.close();
    this.subscriber = null;
    this.publisher = null;
  }

  private receive(message: string, deliver: LocalDelivery): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return; // Not ours: another program shares the channel.
    }
    if (!Array.isArray(parsed) || parsed.length !== 3) return;
    const [origin, topic, text] = parsed as unknown[];
    if (origin === this.origin || typeof topic !== "string" || typeof text !== "string") return;
    deliver(topic, text);
  }
}

/** The URL without its password, for error messages. */
function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
}
