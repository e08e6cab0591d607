/**
 * Server-Sent Events read from a `fetch` response body, as an async iterator of
 * messages, parsed as the HTML standard's EventSource does (fields `event`, `data`,
 * `id`, `retry`; comments; LF, CRLF or CR line ends; a message is dispatched at a
 * blank line, one left unfinished when the stream ends is dropped). Unlike
 * `EventSource` it works with any method, headers and body, in browsers, Bun and
 * Node, and does not reconnect on its own (`lastEventId` tells where to resume).
 */
import { ResponseStream } from "./response-stream.ts";

export interface SseMessage<T = string> {
  /** The event type; `message` when the server gave none. */
  readonly event: string;
  /** The data: JSON objects and arrays parsed, anything else the text as sent. */
  readonly data: T;
  /** The last event id seen on the stream so far (`""` when none). */
  readonly lastEventId: string;
  /** The reconnection delay the server asked for, when it did. */
  readonly retry: number | undefined;
}

/** JSON objects and arrays are parsed (the server sends non-string data as JSON); other text stays text. */
export function sseData(text: string): unknown {
  const first = text.trimStart()[0];
  if (first !== "{" && first !== "[") return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Turns lines of an event stream into messages; fed line by line (exported for its own tests). */
export class SseParser {
  #data: string[] = [];
  #event = "";
  #lastEventId = "";
  #retry: number | undefined = undefined;

  /** One line (without its line break); returns a message when the line is blank and one is complete. */
  line(line: string): SseMessage<unknown> | null {
    if (line === "") return this.#dispatch();
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        this.#data.push(value);
        break;
      case "event":
        this.#event = value;
        break;
      case "id":
        if (!value.includes("\u0000")) this.#lastEventId = value;
        break;
      case "retry":
        if (/^\d+$/.test(value)) this.#retry = Number(value);
        break;
      default:
      // Unknown fields are ignored, as EventSource does.
    }
    return null;
  }

  #dispatch(): SseMessage<unknown> | null {
    const data = this.#data;
    const event = this.#event;
    this.#data = [];
    this.#event = "";
    if (data.length === 0) return null;
    return {
      event: event === "" ? "message" : event,
      data: sseData(data.join("\n")),
      lastEventId: this.#lastEventId,
      retry: this.#retry,
    };
  }
}

/** The messages of an event-stream response body; `break` out of the loop to close the stream. */
export class SseStream<T = string> implements AsyncIterable<SseMessage<T>> {
  readonly #body: ResponseStream;

  constructor(body: ReadableStream<Uint8Array> | null) {
    this.#body = new ResponseStream(body);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SseMessage<T>, undefined> {
    const parser = new SseParser();
    let pending = "";
    // A CR ended the previous chunk: an LF opening this one belongs to it (CRLF split across chunks).
    let skipLf = false;
    for await (const text of this.#body.text()) {
      let start = 0;
      if (skipLf && text[0] === "\n") start = 1;
      skipLf = false;
      for (let i = start; i < text.length; i++) {
        const char = text[i];
        if (char !== "\n" && char !== "\r") continue;
        const line = pending + text.slice(start, i);
        pending = "";
        if (char === "\r") {
          if (i + 1 < text.length) {
            if (text[i + 1] === "\n") i++;
          } else skipLf = true;
        }
        start = i + 1;
        const message = parser.line(line);
        if (message !== null) yield message as SseMessage<T>;
      }
      pending += text.slice(start);
    }
    return undefined;
  }

  /** Stops reading; the server sees the client go. */
  cancel(): Promise<void> {
    return this.#body.cancel();
  }
}
