const encoder = new TextEncoder();

/**
 * One streamed value as bytes: strings as UTF-8, bytes as they are, `null`
 * and `undefined` as nothing, anything else as one line of JSON (NDJSON).
 */
export function chunkBytes(value: unknown): Uint8Array | null {
  if (typeof value === "string") return value === "" ? null : encoder.encode(value);
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value === null || value === undefined) return null;
  return encoder.encode(`${JSON.stringify(value)}\n`);
}

function iteratorOf(
  source: AsyncIterable<unknown> | Iterable<unknown>,
): AsyncIterator<unknown> | Iterator<unknown> {
  if (Symbol.asyncIterator in source) return (source as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  return (source as Iterable<unknown>)[Symbol.iterator]();
}

/**
 * A byte stream pulled from an (async) iterable, one value per pull, so a
 * slow client slows the generator instead of filling memory. When the client
 * goes away (the stream is cancelled, or `signal` aborts) the iterator's
 * `return()` runs, so a generator's `finally` blocks run at its next `yield`.
 * A value thrown by the source errors the stream: the client sees a cut
 * response, never a silently complete one.
 */
export function iterableToStream(
  source: AsyncIterable<unknown> | Iterable<unknown>,
  signal?: AbortSignal,
): ReadableStream<Uint8Array> {
  let iterator: AsyncIterator<unknown> | Iterator<unknown> | null = null;
  let finished = false;
  const stop = (): void => {
    if (finished) return;
    finished = true;
    signal?.removeEventListener("abort", onAbort);
    try {
      Promise.resolve(iterator?.return?.()).catch(() => {});
    } catch {
      // A synchronous iterator's return() threw: nothing left to stop.
    }
  };
  let controllerRef: ReadableStreamDefaultController<Uint8Array> | null = null;
  function onAbort(): void {
    stop();
    try {
      controllerRef?.close();
    } catch {
      // Already closed or errored.
    }
  }
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controllerRef = controller;
        iterator = iteratorOf(source);
        if (signal?.aborted) onAbort();
        else signal?.addEventListener("abort", onAbort, { once: true });
      },
      async pull(controller) {
        // Skip values that produce no bytes, so each pull delivers a chunk or ends the stream.
        for (;;) {
          if (finished || iterator === null) return;
          let result: IteratorResult<unknown>;
          try {
            result = await iterator.next();
          } catch (error) {
            if (finished) return;
            finished = true;
            signal?.removeEventListener("abort", onAbort);
            controller.error(error);
            return;
          }
          if (finished) return;
          if (result.done) {
            finished = true;
            signal?.removeEventListener("abort", onAbort);
            controller.close();
            return;
          }
          const bytes = chunkBytes(result.value);
          if (bytes !== null) {
            controller.enqueue(bytes);
            return;
          }
        }
      },
      cancel() {
        stop();
      },
    },
    { highWaterMark: 0 },
  );
}
