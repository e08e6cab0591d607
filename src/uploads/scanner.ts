/**
 * The multipart framing read from a stream as it arrives (RFC 7578 / RFC 2046): the
 * boundary lines, each part's header block, and each part's bytes. Only a delimiter's
 * length of bytes is ever held back, so memory does not grow with the body. The part
 * headers themselves are parsed by the whole-body parser's code (src/body/multipart.ts).
 */
import { MAX_PART_HEADER_BYTES, malformed } from "../body/multipart.ts";
import { HttpError } from "../response/errors.ts";
import type { UploadTicket } from "./gate.ts";

const CR = 13;
const LF = 10;
const DASH = 45;
const SP = 32;
const HTAB = 9;
const CRLFCRLF = Buffer.from("\r\n\r\n");
const EMPTY = Buffer.alloc(0);

/** The client went away (or the connection broke) before the body ended. */
export class UploadAborted extends HttpError {
  constructor(cause: unknown) {
    super(400, "Upload aborted: the connection closed before the body ended", { connection: "close" });
    this.cause = cause;
  }
}

type State = "start" | "boundary" | "body" | "done";

export class MultipartScanner {
  private buf: Buffer = EMPTY;
  private ended = false;
  private state: State = "start";
  private failure: unknown = null;
  /** Bytes read from the socket so far. */
  total = 0;
  private readonly delimiter: Buffer;
  private readonly dashBoundary: Buffer;

  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    boundary: string,
    private readonly maxTotalSize: number,
    /** The app's upload bounds (src/uploads/gate.ts): a chunked body's bytes are counted as they arrive. */
    private readonly ticket: UploadTicket | null = null,
  ) {
    this.dashBoundary = Buffer.from(`--${boundary}`, "latin1");
    this.delimiter = Buffer.from(`\r\n--${boundary}`, "latin1");
  }

  /** Appends the next chunk of the body; false once the body has ended. */
  private async fill(): Promise<boolean> {
    if (this.ended) return false;
    let result: Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;
    try {
      result = await this.reader.read();
    } catch (error) {
      throw new UploadAborted(error);
    }
    if (result.done) {
      this.ended = true;
      return false;
    }
    const chunk = result.value;
    this.total += chunk.byteLength;
    if (this.total > this.maxTotalSize) {
      throw new HttpError(413, `Upload too large (limit ${this.maxTotalSize} bytes in total)`, {
        connection: "close",
      });
    }
    this.ticket?.arrived(chunk.byteLength);
    const view = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.buf = this.buf.length === 0 ? view : Buffer.concat([this.buf, view]);
    return true;
  }

  /**
   * Drops the first `n` buffered bytes. What is left is copied when it is a small tail of a large
   * chunk (a delimiter's worth held back): a view would keep the whole chunk (128 KiB from Bun)
   * alive while the scanner waits for the client, which is how each pending upload held ~190 KiB
   * (docs/uploads.md#bounds).
   */
  private consume(n: number): void {
    const rest = this.buf.length - n;
    if (rest <= 0) this.buf = EMPTY;
    else if (rest <= this.delimiter.length && this.buf.buffer.byteLength > 4096)
      this.buf = Buffer.from(this.buf.subarray(n));
    else this.buf = this.buf.subarray(n);
  }

  /** Until `n` bytes are buffered; false when the body ends first. */
  private async need(n: number): Promise<boolean> {
    while (this.buf.length < n) if (!(await this.fill())) return false;
    return true;
  }

  /** Runs `step`, and makes every later call fail the same way once one has failed. */
  private async guarded<T>(step: () => Promise<T>): Promise<T> {
    if (this.failure !== null) throw this.failure;
    try {
      return await step();
    } catch (error) {
      this.failure = error;
      this.state = "done";
      this.buf = EMPTY;
      throw error;
    }
  }

  /**
   * The header block of the next part (`""` when it has none), skipping whatever is left of the
   * current part; null after the closing delimiter.
   */
  nextPart(): Promise<string | null> {
    return this.guarded(async () => {
      if (this.state === "done") return null;
      if (this.state === "start") await this.findFirstBoundary();
      else if (this.state === "body") while ((await this.readChunk()) !== null) {}
      return this.afterBoundary();
    });
  }

  /** The next bytes of the current part; null at its end. */
  nextChunk(): Promise<Buffer | null> {
    return this.guarded(() => this.readChunk());
  }

  /** Whether the current part is empty (its delimiter comes right away); reads nothing out of it. */
  partIsEmpty(): Promise<boolean> {
    return this.guarded(async () => {
      if (this.state !== "body") return true;
      await this.need(this.delimiter.length);
      return this.buf.subarray(0, this.delimiter.length).equals(this.delimiter);
    });
  }

  private async findFirstBoundary(): Promise<void> {
    // The body opens with the boundary, or a preamble ending in CRLF comes first (ignored).
    if (
      (await this.need(this.dashBoundary.length)) &&
      this.buf.subarray(0, this.dashBoundary.length).equals(this.dashBoundary)
    ) {
      this.consume(this.dashBoundary.length);
      this.state = "boundary";
      return;
    }
    for (;;) {
      const at = this.buf.indexOf(this.delimiter);
      if (at !== -1) {
        this.consume(at + this.delimiter.length);
        this.state = "boundary";
        return;
      }
      // Keep only what could be the start of the delimiter: a preamble costs no memory.
      this.consume(Math.max(0, this.buf.length - this.delimiter.length + 1));
      if (!(await this.fill()))
        throw malformed("the boundary given in Content-Type does not occur in the body");
    }
  }

  private async afterBoundary(): Promise<string | null> {
    if (!(await this.need(2))) throw malformed("truncated body (missing final boundary)");
    if (this.buf[0] === DASH && this.buf[1] === DASH) {
      // The close delimiter; the epilogue is not read.
      this.state = "done";
      return null;
    }
    // Transport padding, then CRLF.
    let i = 0;
    for (;;) {
      if (!(await this.need(i + 2))) throw malformed("truncated body (missing final boundary)");
      const c = this.buf[i];
      if (c === SP || c === HTAB) {
        i++;
        continue;
      }
      if (c !== CR || this.buf[i + 1] !== LF) throw malformed("boundary line not followed by CRLF");
      break;
    }
    this.consume(i + 2);
    if (!(await this.need(2))) throw malformed("truncated part headers");
    if (this.buf[0] === CR && this.buf[1] === LF) {
      this.consume(2);
      this.state = "body";
      return "";
    }
    for (;;) {
      const end = this.buf.subarray(0, MAX_PART_HEADER_BYTES + CRLFCRLF.length).indexOf(CRLFCRLF);
      if (end !== -1) {
        const text = this.buf.subarray(0, end).toString("utf8");
        this.consume(end + CRLFCRLF.length);
        this.state = "body";
        return text;
      }
      if (this.buf.length >= MAX_PART_HEADER_BYTES + CRLFCRLF.length) {
        throw new HttpError(413, `Multipart part headers too large (limit ${MAX_PART_HEADER_BYTES} bytes)`, {
          connection: "close",
        });
      }
      if (!(await this.fill())) throw malformed("truncated part headers");
    }
  }

  private async readChunk(): Promise<Buffer | null> {
    if (this.state !== "body") return null;
    for (;;) {
      const at = this.buf.indexOf(this.delimiter);
      if (at !== -1) {
        const out = this.buf.subarray(0, at);
        this.consume(at + this.delimiter.length);
        this.state = "boundary";
        return out.length > 0 ? out : null;
      }
      // Everything but a possible start of the delimiter belongs to the part. Holding back only
      // a real prefix of it (usually nothing) means the next chunk is used as it is, not copied.
      const safe = this.buf.length - this.heldBack();
      if (safe > 0) {
        const out = this.buf.subarray(0, safe);
        this.consume(safe);
        return out;
      }
      if (!(await this.fill())) throw malformed("truncated body (missing final boundary)");
    }
  }

  /** How many bytes at the end of the buffer could begin a delimiter (it starts with CR). */
  private heldBack(): number {
    const buf = this.buf;
    const from = Math.max(0, buf.length - (this.delimiter.length - 1));
    for (let at = buf.indexOf(CR, from); at !== -1; at = buf.indexOf(CR, at + 1)) {
      const tail = buf.length - at;
      if (buf.compare(this.delimiter, 0, tail, at) === 0) return tail;
    }
    return 0;
  }

  /** Stops reading: the rest of the body is left to the server (and dropped with the connection). */
  cancel(): void {
    this.state = "done";
    this.buf = EMPTY;
    void this.reader.cancel().catch(() => {});
  }
}
