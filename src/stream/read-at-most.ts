/**
 * Reads a byte stream whole but never more than `limit` bytes: `null` as soon as it passes the limit
 * (the stream is cancelled, so the rest is never buffered). A stream that errors rejects. Used where
 * a body is read outside the request pipeline's own reader (src/body/read-body.ts, which also keeps
 * the in-flight budget and the read deadline): MCP's POST bodies and route tools' answers.
 */
export async function readAtMost(
  stream: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Uint8Array | null> {
  if (stream === null) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}
