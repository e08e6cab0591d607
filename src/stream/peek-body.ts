/**
 * Tells a body that is already complete from one that is still being produced,
 * without waiting for the producer. After-request middlewares get a `Response`
 * whose `description` holds the body when it is complete (a string, JSON, a
 * template), but a streamed body (`sse()`, a generator, a `ReadableStream` fed
 * over time) must keep streaming: reading it to its end first would hold the
 * first event back until the generator finishes, or forever.
 *
 * Bun gives no flag for "this stream is backed by bytes in memory", so the body
 * is read for as long as chunks are ready before the next macrotask: a body
 * held in memory (string, bytes, blob, a small file) is read to its end in
 * that time; a producer that awaits anything is not. What was read is put back
 * in front of the rest, so nothing is lost or reordered.
 */

export type PeekedBody =
  | { complete: true; bytes: Uint8Array }
  | { complete: false; stream: ReadableStream<Uint8Array> };

const PENDING = Symbol("pending");
type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;

function nextMacrotask(): Promise<typeof PENDING> {
  return new Promise((resolve) => setImmediate(() => resolve(PENDING)));
}

/** `maxBytes`: stop reading (and stream the rest) once this much was read, for large files. */
export async function peekBody(
  body: ReadableStream<Uint8Array>,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<PeekedBody> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    if (size > maxBytes) return { complete: false, stream: resumed(chunks, null, reader) };
    const read = reader.read();
    const step = await Promise.race([read, nextMacrotask()]);
    if (step === PENDING) return { complete: false, stream: resumed(chunks, read, reader) };
    if (step.done) return { complete: true, bytes: concat(chunks) };
    chunks.push(step.value);
    size += step.value.byteLength;
  }
}

/** A stream of the chunks already read, then the read still in flight, then the rest of the reader. */
function resumed(
  chunks: Uint8Array[],
  inflight: Promise<ReadResult> | null,
  reader: ReadableStreamDefaultReader<Uint8Array>,
): ReadableStream<Uint8Array> {
  let index = 0;
  let next: Promise<ReadResult> | null = inflight;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index < chunks.length) {
        controller.enqueue(chunks[index++] as Uint8Array);
        return;
      }
      const read = next ?? reader.read();
      next = null;
      const { done, value } = await read;
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

function concat(chunks: Uint8Array[]): Uint8Array {
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks);
}
