/**
 * MCP sessions across machines, through the Redis the app configured with
 * `configureBroadcast`. A session lives in the process that answered its
 * `initialize` (its SDK server, its open streams, its resumability log, the
 * sampling requests it waits on); behind a load balancer without sticky
 * routing its next request may reach any process of any machine.
 *
 * Every process is a node with a channel of its own and names itself in the
 * ids of the sessions it opens (`r<node>.<uuid>`). A request for another
 * node's session is published to that node's channel, headers and body as
 * they came; the owner answers it as if it had arrived there and publishes
 * the answer back in frames: the head, the body's chunks in order (one
 * publishing connection per node, so Redis keeps them in order), the end. A
 * client that leaves cancels the owner's answer; an owner that leaves (its
 * channel has no subscriber) fails what waits on it, and a session whose
 * owner is gone gets the 404 the spec prescribes, so the client starts a new
 * one. Frames lost with a dropped Redis connection cannot be recovered, so a
 * drop ends every relayed answer in flight (a client resumes an SSE stream
 * with `Last-Event-ID`). While Redis is unreachable a request for another
 * node's session gets 503 and the session survives (docs/mcp.md).
 */

import type { RedisClient } from "bun";
import { Request } from "../http/request.ts";
import {
  closeClients,
  lastingClient,
  probeRedis,
  redactUrl,
  subscribeAfresh,
} from "../topics/redis-connection.ts";
import { refuse, type SessionRelay } from "./http.ts";
import type { RelayTarget } from "./process-relay.ts";
import { carryClient, RELAYED_HEADER, relayedClient } from "./relay-header.ts";

/** How often the channels of the other end of a relayed answer are checked for a subscriber. */
const LIVENESS_MS = 2000;
/** Checks in a row that find no subscriber before the other end counts as gone. */
const MISSES = 2;
/** Bytes of a relayed answer the client has not read yet, before the answer is given up. */
const MAX_UNREAD = 16 * 1024 * 1024;

type Frame =
  | {
      t: "req";
      id: string;
      from: string;
      method: string;
      path: string;
      headers: [string, string][];
      body?: string;
    }
  | {
      t: "head";
      id: string;
      status: number;
      headers: [string, string][];
      /** The whole body (base64) of an answer that is not a stream: no data or end frames follow. */
      whole?: string;
    }
  | { t: "data"; id: string; bytes: string }
  | { t: "end"; id: string }
  | { t: "fail"; id: string }
  | { t: "cancel"; id: string };

/** The head of a relayed answer, and its whole body when it is not a stream. */
interface Head {
  status: number;
  headers: [string, string][];
  whole?: Uint8Array;
}

/** A request this node relayed, waiting for its answer. */
interface Waiting {
  owner: string;
  misses: number;
  /** Resolves with the answer's head, or null when the owner is gone before answering. */
  answer: (head: Head | null) => void;
  /** True once the head came: the body's frames follow. */
  answered: boolean;
  /**
   * The body of a streamed answer. Made with the request, before anything is published: Redis
   * may deliver the head and the first chunks in one read, before the relay has its answer.
   */
  body: ReadableStreamDefaultController<Uint8Array>;
}

/** An answer this node produces for another node. */
interface Serving {
  requester: string;
  misses: number;
  abort: AbortController;
}

/** The node a session id names, or null for an id this relay did not make. */
function ownerOf(sessionId: string): string | null {
  const match = /^r([0-9a-f]{16})\./.exec(sessionId);
  return match ? (match[1] as string) : null;
}

function isHeaderList(value: unknown): value is [string, string][] {
  return (
    Array.isArray(value) &&
    value.every(
      (pair) =>
        Array.isArray(pair) &&
        pair.length === 2 &&
        typeof pair[0] === "string" &&
        typeof pair[1] === "string",
    )
  );
}

/** A request frame as this relay sends them (anything else on the channel is ignored). */
function isRequestFrame(frame: Extract<Frame, { t: "req" }>): boolean {
  return (
    typeof frame.from === "string" &&
    /^[0-9a-f]{16}$/.test(frame.from) &&
    typeof frame.method === "string" &&
    typeof frame.path === "string" &&
    frame.path.startsWith("/") &&
    isHeaderList(frame.headers) &&
    (frame.body === undefined || typeof frame.body === "string")
  );
}

function unavailable(): globalThis.Response {
  return refuse(503, -32603, "the server that holds this session cannot be reached; retry", {
    "retry-after": "1",
  });
}

export class RedisSessionRelay {
  /** This process's node id: 16 hex digits. */
  readonly node: string = crypto.randomUUID().replaceAll("-", "").slice(0, 16);
  private publisher: RedisClient | null = null;
  private subscriber: RedisClient | null = null;
  private stopped = false;
  private readonly waiting = new Map<string, Waiting>();
  private readonly serving = new Map<string, Serving>();
  private liveness: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly url: string,
    /** The prefix of every node's channel (the app's broadcast channel). */
    private readonly prefix: string,
    private readonly target: Pick<RelayTarget, "handle">,
  ) {}

  /** Session ids of this node: `r`, the node, then a random UUID. */
  newId = (): string => `r${this.node}.${crypto.randomUUID()}`;

  private channelOf(node: string): string {
    return `${this.prefix}:mcp:${node}`;
  }

  /** Connects and subscribes to this node's channel; rejects (and `start()` fails) without Redis. */
  async start(): Promise<void> {
    try {
      await probeRedis(this.url);
      this.publisher = lastingClient(this.url, () => this.stopped);
      this.subscriber = lastingClient(
        this.url,
        () => this.stopped,
        () => this.dropAll(),
      );
      await Promise.all([this.publisher.connect(), this.subscriber.connect()]);
      await this.subscribe();
    } catch (error) {
      this.stop();
      throw new Error(
        `MCP sessions: cannot use Redis at ${redactUrl(this.url)}: ${(error as Error).message}`,
      );
    }
    // The server forgets a subscription with its connection: renewed on every reconnection.
    this.subscriber.onconnect = () => void this.subscribe().catch(() => undefined);
  }

  stop(): void {
    this.stopped = true;
    this.dropAll();
    closeClients(this.subscriber, this.publisher);
    this.subscriber = null;
    this.publisher = null;
  }

  /** Subscribes to this node's channel (again after a reconnection: the server forgot it). */
  private async subscribe(): Promise<void> {
    const subscriber = this.subscriber;
    if (subscriber === null || this.stopped) return;
    await subscribeAfresh(subscriber, this.channelOf(this.node), (message) => this.receive(message));
  }

  /** Passes a request for another node's session there; null when the id names no live node. */
  readonly relay: SessionRelay = async (request, sessionId, body) => {
    const owner = ownerOf(sessionId);
    if (owner === null || owner === this.node || request.raw.headers.has(RELAYED_HEADER)) return null;
    const publisher = this.publisher;
    if (publisher === null) return unavailable();
    const id = crypto.randomUUID();
    const url = new URL(request.raw.url);
    const sent = new Headers(request.raw.headers);
    carryClient(sent, request.ipAddr);
    const frame: Frame = {
      t: "req",
      id,
      from: this.node,
      method: request.raw.method,
      path: url.pathname + url.search,
      headers: [...sent],
    };
    if (body !== undefined) frame.body = Buffer.from(body).toString("base64");
    const { promise: head, resolve: answer } = Promise.withResolvers<Head | null>();
    let answerBody!: ReadableStreamDefaultController<Uint8Array>;
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          answerBody = controller;
        },
        cancel: () => this.end(id, true),
      },
      { highWaterMark: 0 },
    );
    const waiting: Waiting = { owner, misses: 0, answer, answered: false, body: answerBody };
    this.waiting.set(id, waiting);
    let receivers: number;
    try {
      receivers = await publisher.publish(this.channelOf(owner), JSON.stringify(frame));
    } catch {
      this.waiting.delete(id);
      return unavailable();
    }
    // Nobody listens on the owner's channel: its process is gone, and its sessions with it.
    if (receivers === 0) {
      this.waiting.delete(id);
      return null;
    }
    this.watch();
    // The client left before the answer came: the owner stops working on it.
    const left = () => this.end(id, true);
    request.raw.signal.addEventListener("abort", left, { once: true });
    if (request.raw.signal.aborted) left();
    const got = await head;
    if (got === null || got.whole !== undefined) request.raw.signal.removeEventListener("abort", left);
    if (got === null) return null;
    let headers: Headers;
    try {
      headers = new Headers(got.headers);
    } catch {
      return unavailable(); // a head no relay of ours wrote (a header name Headers refuses)
    }
    headers.delete("content-length"); // Bun sets the framing itself
    return new Response(got.whole === undefined ? stream : (got.whole as Uint8Array<ArrayBuffer>), {
      status: got.status,
      headers,
    });
  };

  private receive(message: string): void {
    let frame: Frame;
    try {
      frame = JSON.parse(message) as Frame;
    } catch {
      return; // not ours: another program publishes on the channel
    }
    if (frame === null || typeof frame !== "object" || typeof frame.id !== "string") return;
    if (frame.t === "req") {
      if (isRequestFrame(frame)) void this.serve(frame);
    } else if (frame.t === "cancel") this.serving.get(frame.id)?.abort.abort();
    else {
      try {
        this.onAnswer(frame);
      } catch {
        // A frame for a stream that ended meanwhile: nothing to deliver it to. This runs in the
        // Redis client's callback, where a throw would be an uncaught exception.
        this.waiting.delete(frame.id);
      }
    }
  }

  /** A frame of an answer to a request this node relayed. */
  private onAnswer(frame: Exclude<Frame, { t: "req" } | { t: "cancel" }>): void {
    const waiting = this.waiting.get(frame.id);
    if (waiting === undefined) return;
    waiting.misses = 0;
    if (frame.t === "head") {
      if (!Number.isInteger(frame.status) || !isHeaderList(frame.headers)) {
        this.end(frame.id, true);
        return;
      }
      waiting.answered = true;
      const head: Head = { status: frame.status, headers: frame.headers };
      if (typeof frame.whole === "string") {
        head.whole = new Uint8Array(Buffer.from(frame.whole, "base64"));
        this.waiting.delete(frame.id);
      }
      waiting.answer(head);
      return;
    }
    if (frame.t === "data") {
      if (typeof frame.bytes !== "string") return;
      waiting.body.enqueue(new Uint8Array(Buffer.from(frame.bytes, "base64")));
      // A client that stops reading must not make this process buffer without bound.
      if ((waiting.body.desiredSize ?? 0) < -MAX_UNREAD) this.end(frame.id, true);
      return;
    }
    this.waiting.delete(frame.id);
    if (frame.t === "end") waiting.body.close();
    else if (!waiting.answered) waiting.answer(null);
    else waiting.body.error(new Error("the relayed answer failed"));
  }

  /** Answers a request another node relayed here, publishing the answer back in frames. */
  private async serve(frame: Extract<Frame, { t: "req" }>): Promise<void> {
    const abort = new AbortController();
    const serving: Serving = { requester: frame.from, misses: 0, abort };
    this.serving.set(frame.id, serving);
    this.watch();
    const reply = this.channelOf(frame.from);
    let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
    abort.signal.addEventListener("abort", () => void reader?.cancel().catch(() => undefined), {
      once: true,
    });
    try {
      const headers = new Headers(frame.headers);
      headers.set(RELAYED_HEADER, frame.from);
      const raw = new globalThis.Request(new URL(frame.path, "http://localhost"), {
        method: frame.method,
        headers,
        signal: abort.signal,
      });
      const body = frame.body === undefined ? undefined : new Uint8Array(Buffer.from(frame.body, "base64"));
      const request = new Request(raw, {});
      // The client's address, as the node it reached saw it (only nodes publish on this channel).
      request.ipAddr = relayedClient(headers);
      const response = await this.target.handle(request, body);
      const head: Frame = {
        t: "head",
        id: frame.id,
        status: response.status,
        headers: [...response.headers],
      };
      // An answer that is not an event stream is complete once made (JSON, errors): one frame.
      if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
        head.whole = Buffer.from(await response.arrayBuffer()).toString("base64");
        if (!abort.signal.aborted) await this.send(reply, head);
        return;
      }
      reader = response.body?.getReader() ?? null;
      if (abort.signal.aborted) {
        await reader?.cancel().catch(() => undefined);
        return;
      }
      if (!(await this.send(reply, head))) {
        abort.abort();
        return;
      }
      while (reader !== null) {
        const { done, value } = await reader.read();
        if (done) break;
        const data: Frame = { t: "data", id: frame.id, bytes: Buffer.from(value).toString("base64") };
        if (!(await this.send(reply, data))) {
          abort.abort();
          return;
        }
      }
      await this.send(reply, { t: "end", id: frame.id });
    } catch {
      // Cancelled (the client left), or the answer's stream failed: the requester ends its side.
      if (!abort.signal.aborted) await this.send(reply, { t: "fail", id: frame.id });
    } finally {
      this.serving.delete(frame.id);
    }
  }

  /** Publishes a frame; false when nobody received it (the other end is gone) or Redis is away. */
  private async send(channel: string, frame: Frame): Promise<boolean> {
    const publisher = this.publisher;
    if (publisher === null) return false;
    try {
      return (await publisher.publish(channel, JSON.stringify(frame))) > 0;
    } catch {
      return false;
    }
  }

  /**
   * Ends a relayed request: its client left or its answer is given up (`tellOwner`: the owner stops
   * working on it), or its owner is gone. Before the head the relay answers null (404); after it
   * the body fails, which ends the client's response.
   */
  private end(id: string, tellOwner = false): void {
    const waiting = this.waiting.get(id);
    if (waiting === undefined) return;
    this.waiting.delete(id);
    if (waiting.answered) waiting.body.error(new Error("the relayed answer ended"));
    else waiting.answer(null);
    if (tellOwner) void this.send(this.channelOf(waiting.owner), { t: "cancel", id });
  }

  /** Ends everything in flight: the frames of a dropped connection are lost. */
  private dropAll(): void {
    for (const id of [...this.waiting.keys()]) this.end(id);
    for (const serving of this.serving.values()) serving.abort.abort();
  }

  /** Checks, while anything is in flight, that the other ends still listen. */
  private watch(): void {
    if (this.liveness !== null) return;
    this.liveness = setInterval(() => void this.check(), LIVENESS_MS);
    this.liveness.unref();
  }

  private async check(): Promise<void> {
    const publisher = this.publisher;
    if (this.waiting.size === 0 && this.serving.size === 0) {
      if (this.liveness !== null) clearInterval(this.liveness);
      this.liveness = null;
      return;
    }
    if (publisher === null) return;
    const nodes = new Set<string>();
    for (const waiting of this.waiting.values()) nodes.add(waiting.owner);
    for (const serving of this.serving.values()) nodes.add(serving.requester);
    const channels = [...nodes].map((node) => this.channelOf(node));
    let reply: unknown;
    try {
      reply = await publisher.send("PUBSUB", ["NUMSUB", ...channels]);
    } catch {
      return; // Redis away: the subscriber's drop ends what is in flight
    }
    if (!Array.isArray(reply)) return;
    const alive = new Set<string>();
    for (let i = 0; i + 1 < reply.length; i += 2) {
      if (Number(reply[i + 1]) > 0) alive.add(String(reply[i]));
    }
    for (const [id, waiting] of this.waiting) {
      if (alive.has(this.channelOf(waiting.owner))) waiting.misses = 0;
      else if (++waiting.misses >= MISSES) this.end(id);
    }
    for (const serving of this.serving.values()) {
      if (alive.has(this.channelOf(serving.requester))) serving.misses = 0;
      else if (++serving.misses >= MISSES) serving.abort.abort();
    }
  }
}
