/**
 * A byte stream passed through unchanged that tells once when it is over: read to its end,
 * errored, or cancelled (the client went away, or a HEAD answer dropped the body). Background
 * tasks of a streamed answer start then (src/background/after-response.ts), so "after the
 * response" holds for an SSE feed or a generator as it does for a text answer.
 *
 * One read of the source per pull and nothing buffered (high-water mark 0): a slow client still
 * slows the producer. Only answers that stream and have tasks waiting get this wrapper.
 */
export function onStreamEnd(
  source: ReadableStream<Uint8Array>,
  ended: () => void,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let over = false;
  const end = (): void => {
    if (over) return;
    over = true;
    ended();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          end();
          controller.error(error);
          return;
        }
        if (chunk.done) {
          controller.close();
          end();
        } else controller.enqueue(chunk.value);
      },
      cancel(reason) {
        end();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
