/**
 * Admission of streamed uploads (docs/uploads.md#bounds). One gate per built app (per process)
 * counts the uploads in flight and their bytes. An upload is admitted before its handler runs, so
 * a refusal (503, `Retry-After`, `Connection: close`) costs no file, no buffer and no read of the
 * body: under a flood of uploads that clients abandon, the server keeps only `maxInFlight` of them
 * open and answers the rest at once, instead of opening a file for each and keeping its first
 * chunk until the flood ends (issue 39, measured in docs/uploads.md).
 */
import { HttpError } from "../response/errors.ts";
import type { ResolvedUploadBounds } from "./bounds.ts";

const MiB = 1024 * 1024;

/** One admitted upload: what it holds of the gate, given back once by `release`. */
export class UploadTicket {
  /** Bytes this upload holds of the byte budget (its declared length, or what arrived so far). */
  private held: number;
  private released = false;

  /** @internal */
  constructor(
    private readonly gate: UploadGate,
    /** The declared `Content-Length`, reserved whole; null for a chunked body (counted as it arrives). */
    private readonly declared: number | null,
  ) {
    this.held = declared ?? 0;
  }

  /**
   * `bytes` more of the body arrived. A declared length was reserved already; a chunked body takes
   * its share now and is stopped (503) once the process's total would pass the budget.
   */
  arrived(bytes: number): void {
    if (this.declared !== null || this.released) return;
    if (!this.gate.takeBytes(bytes)) throw this.gate.overBudget("crossed");
    this.held += bytes;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.gate.giveBack(this.held);
  }
}

export class UploadGate {
  private uploads = 0;
  private bytes = 0;
  /** Uploads refused since start (count or bytes), for metrics and tests. */
  refused = 0;

  constructor(readonly bounds: ResolvedUploadBounds) {}

  /** Uploads in flight now. */
  get inFlight(): number {
    return this.uploads;
  }

  /** Bytes of the byte budget held now. */
  get bytesInFlight(): number {
    return this.bytes;
  }

  /**
   * Admits the upload of `raw` or throws the 503 that refuses it. Nothing of the body is read here:
   * only its declared length is looked at (an invalid one is left to the parser's 400).
   */
  admit(raw: globalThis.Request): UploadTicket {
    if (this.uploads >= this.bounds.maxInFlight) {
      this.refused++;
      throw refusal(`Service Unavailable: too many uploads in flight (limit ${this.bounds.maxInFlight})`);
    }
    const header = raw.headers.get("content-length");
    const declared = header !== null && /^\d+$/.test(header.trim()) ? Number(header) : null;
    if (declared !== null && this.bytes + declared > this.bounds.maxBytesInFlight) {
      this.refused++;
      throw this.overBudget("declared");
    }
    this.uploads++;
    if (declared !== null) this.bytes += declared;
    return new UploadTicket(this, declared);
  }

  /** For the metrics (src/observability/bounds-metrics.ts). */
  readonly stats = (): { inFlight: number; bytes: number; refused: number } => ({
    inFlight: this.uploads,
    bytes: this.bytes,
    refused: this.refused,
  });

  /** @internal */
  takeBytes(bytes: number): boolean {
    if (this.bytes + bytes > this.bounds.maxBytesInFlight) return false;
    this.bytes += bytes;
    return true;
  }

  /** @internal */
  giveBack(bytes: number): void {
    this.uploads = Math.max(0, this.uploads - 1);
    this.bytes = Math.max(0, this.bytes - bytes);
  }

  /** @internal The 503 of the byte budget: before reading (`declared`) or while streaming (`crossed`). */
  overBudget(when: "declared" | "crossed"): HttpError {
    const limit = `${Math.round(this.bounds.maxBytesInFlight / MiB)} MiB`;
    if (when === "crossed") this.refused++;
    return refusal(
      when === "declared"
        ? `Service Unavailable: this upload does not fit in the bytes of uploads in flight (limit ${limit})`
        : `Service Unavailable: upload stopped, the bytes of uploads in flight passed their limit (${limit})`,
    );
  }
}

/**
 * 503 with `Retry-After` (uploads in flight end within seconds to minutes; a client retrying after
 * 5 s spreads the load) and `Connection: close`, so the unread body goes with the connection.
 */
function refusal(message: string): HttpError {
  return new HttpError(503, message, { "retry-after": "5", connection: "close" });
}
