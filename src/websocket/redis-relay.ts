import type { RedisClient } from "bun";
import {
  closeClients,
  lastingClient,
  probeRedis,
  redactUrl,
  subscribeAfresh,
} from "../topics/redis-connection.ts";
import type { WebSocketErrorLogger } from "./lifecycle.ts";

/** Delivers a broadcast to this process's clients of a topic. */
export type LocalDelivery = (topic: string, text: string) => void;

/**
 * Carries broadcasts between processes over one Redis pub/sub channel (Bun's
 * built-in client: one connection publishes, another subscribes, since a
 * subscribed Redis connection can do nothing else). Each process tags what it
 * publishes with its own id and ignores its own messages when they come back:
 * its local clients already got them, straight from Bun's pub/sub.
 *
 * While Redis is unreachable, broadcasts still reach this process's clients
 * and are not queued for the others (no unbounded buffer; one log line per
 * outage). Bun reconnects by itself; the subscription is renewed on every
 * reconnection, since the server forgets it.
 */
export class RedisRelay {
  /** This process's id on the channel. */
  readonly origin: string = crypto.randomUUID();
  private publisher: RedisClient | null = null;
  private subscriber: RedisClient | null = null;
  private stopped = false;
  private failing = false;
  private readonly listener = (message: string) => this.receive(message);
  private deliver: LocalDelivery = () => {};

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly log: WebSocketErrorLogger,
  ) {}

  /** Connects and subscribes; rejects (and the app's `start()` fails) when Redis cannot be reached. */
  async start(deliver: LocalDelivery): Promise<void> {
    this.deliver = deliver;
    try {
      await probeRedis(this.url);
      this.publisher = lastingClient(this.url, () => this.stopped);
      this.subscriber = lastingClient(this.url, () => this.stopped);
      await Promise.all([this.publisher.connect(), this.subscriber.connect()]);
      await this.subscriber.subscribe(this.channel, this.listener);
    } catch (error) {
      this.stop();
      throw new Error(
        `WebSocket broadcast: cannot use Redis at ${redactUrl(this.url)}: ${(error as Error).message}`,
      );
    }
    this.subscriber.onconnect = () => void this.resubscribe();
  }

  /** Sends a broadcast to the other processes (fire and forget: local delivery never waits for Redis). */
  publish(topic: string, text: string): void {
    const publisher = this.publisher;
    if (!publisher) return;
    publisher.publish(this.channel, JSON.stringify([this.origin, topic, text])).then(
      () => {
        this.failing = false;
      },
      (error: unknown) => {
        if (this.stopped) return; // the last broadcasts of a stopping server
        if (!this.failing)
          this.log(
            error,
            "WebSocket broadcast through Redis (other processes miss broadcasts until it is back)",
          );
        this.failing = true;
      },
    );
  }

  stop(): void {
    this.stopped = true;
    closeClients(this.subscriber, this.publisher);
    this.subscriber = null;
    this.publisher = null;
  }

  /** The server forgot the subscription with the connection; dropping the local one first avoids a double listener. */
  private async resubscribe(): Promise<void> {
    const subscriber = this.subscriber;
    if (!subscriber || this.stopped) return;
    try {
      await subscribeAfresh(subscriber, this.channel, this.listener);
    } catch (error) {
      this.log(error, "renewing the Redis subscription of WebSocket broadcasts");
    }
  }

  private receive(message: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return; // Not ours: another program shares the channel.
    }
    if (!Array.isArray(parsed) || parsed.length !== 3) return;
    const [origin, topic, text] = parsed as unknown[];
    if (origin === this.origin || typeof topic !== "string" || typeof text !== "string") return;
    this.deliver(topic, text);
  }
}
