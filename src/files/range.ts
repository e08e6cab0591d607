/** The outcome of a `Range: bytes=…` header against a representation of `size` bytes. */
export type RangeResult =
  /** Serve the whole body (no header, a syntax we ignore, several ranges, an empty file). */
  | { kind: "full" }
  /** Serve bytes `start` to `end` inclusive with 206. */
  | { kind: "partial"; start: number; end: number }
  /** No range overlaps the body: 416. */
  | { kind: "unsatisfiable" };

const SPEC = /^(\d*)-(\d*)$/;

/**
 * Interprets a `Range` header (RFC 9110 §14). A single range is honoured;
 * several ranges are answered with the whole body (allowed: a server may
 * ignore Range), which spares multipart/byteranges and the amplification
 * attacks it invites. An invalid header is ignored as the RFC says.
 */
export function parseRange(header: string | null, size: number): RangeResult {
  if (header === null || size === 0) return { kind: "full" };
  const trimmed = header.trim();
  const eq = trimmed.indexOf("=");
  if (eq === -1 || trimmed.slice(0, eq).trim().toLowerCase() !== "bytes") return { kind: "full" };
  const specs = trimmed
    .slice(eq + 1)
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (specs.length !== 1) return { kind: "full" };
  const match = SPEC.exec(specs[0]!);
  if (match === null) return { kind: "full" };
  const [, first, last] = match as unknown as [string, string, string];
  if (first === "" && last === "") return { kind: "full" };
  if (first === "") {
    // Suffix range: the last N bytes.
    const length = Number(last);
    if (length === 0) return { kind: "unsatisfiable" };
    return { kind: "partial", start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  if (last !== "" && Number(last) < start) return { kind: "full" }; // syntactically invalid: ignored
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "partial", start, end: last === "" ? size - 1 : Math.min(Number(last), size - 1) };
}
