/**
 * Strict UTF-8 decoding of request bodies, cheap on the common case (docs/performance.md,
 * "POST /json: the body read"). A fatal `TextDecoder` validates while it decodes, through a Web
 * binding that costs about a thousand instructions per call more than Bun's native `Buffer`
 * decoder; that one replaces invalid sequences with U+FFFD instead of failing. So the bytes are
 * decoded with it, and only a text that holds a U+FFFD (a replacement, or a U+FFFD the client
 * really sent) is decoded again strictly, from the same bytes: no copy is kept for it.
 */

type Utf8Slice = (this: Uint8Array, start: number, end: number) => string;

const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
/** Bun's (and Node's) native decoder of `Buffer`; it takes any `Uint8Array` and keeps a BOM. */
const nativeSlice = (Buffer.prototype as unknown as { utf8Slice?: Utf8Slice }).utf8Slice;
const lossy = new TextDecoder("utf-8", { ignoreBOM: true });

/** The bytes as text, with U+FFFD for what is not UTF-8 (the BOM kept). */
const lenient: (bytes: Uint8Array) => string =
  typeof nativeSlice === "function"
    ? (bytes) => nativeSlice.call(bytes, 0, bytes.length)
    : (bytes) => lossy.decode(bytes);

/**
 * `bytes` as text when they are valid UTF-8 (RFC 3629: no overlong forms, no encoded surrogates,
 * nothing past U+10FFFF, nothing cut short), else `null`. A leading BOM is kept as U+FEFF.
 */
export function strictUtf8(bytes: Uint8Array): string | null {
  const text = lenient(bytes);
  if (!text.includes("\uFFFD")) return text;
  try {
    return strict.decode(bytes);
  } catch {
    return null;
  }
}
