/**
 * The body of a route that streams (an async generator, a `ReadableStream`) or sends
 * bytes (`Uint8Array`, files): read it chunk by chunk as it arrives (`for await`), as
 * decoded text chunks or lines, or whole. Works wherever `fetch` does (browsers,
 * Bun, Node): it uses only the stream's reader.
 */
export class ResponseStream implements AsyncIterable<Uint8Array> {
  readonly #body: ReadableStream<Uint8Array> | null;
  #used = false;

  constructor(body: ReadableStream<Uint8Array> | null) {
    this.#body = body;
  }

  /** The chunks as they arrive. A stream can be read once. */
  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array, undefined> {
    if (this.#used) throw new TypeError("this response stream has already been read");
    this.#used = true;
    if (this.#body === null) return undefined;
    const reader = this.#body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return undefined;
        if (value.byteLength > 0) yield value;
      }
    } finally {
      // Leaving the loop early (break, throw) cancels the request's body: the server sees the disconnect.
      await reader.cancel().catch(() => undefined);
    }
  }

  /** The chunks decoded as UTF-8 (a character split across chunks is kept whole). */
  async *text(): AsyncGenerator<string, undefined> {
    const decoder = new TextDecoder();
    for await (const chunk of this) {
      const text = decoder.decode(chunk, { stream: true });
      if (text !== "") yield text;
    }
    const rest = decoder.decode();
    if (rest !== "") yield rest;
    return undefined;
  }

  /** Lines of the text (split on LF or CRLF), the last one even without a line break. */
  async *lines(): AsyncGenerator<string, undefined> {
    let pending = "";
    for await (const text of this.text()) {
      pending += text;
      let end = pending.indexOf("\n");
      while (end !== -1) {
        yield pending.slice(0, end).replace(/\r$/, "");
        pending = pending.slice(end + 1);
        end = pending.indexOf("\n");
      }
    }
    if (pending !== "") yield pending.replace(/\r$/, "");
    return undefined;
  }

  /** The whole body. */
  async bytes(): Promise<Uint8Array> {
    const chunks: Uint8Array[] = [];
    let length = 0;
    for await (const chunk of this) {
      chunks.push(chunk);
      length += chunk.byteLength;
    }
    const out = new Uint8Array(length);
    let offset = 0;
    for (const chunk of chunks) {
      out.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return out;
  }

  /** Stops reading; the server sees the client go. */
  async cancel(): Promise<void> {
    this.#used = true;
    await this.#body?.cancel().catch(() => undefined);
  }
}
