/**
 * Web responses whose body webfw made as a stream (a `ReadableStream` the handler returned, a
 * generator or async iterable, `sse()`, a webfw `Response` carrying a stream). They carry a mark
 * (a symbol property, like the plain-text mark) because a Web response does not say whether its
 * body is a stream or bytes Bun already holds: reading `.body` makes a stream of either. Background
 * tasks wait for a marked body's end (src/background/after-response.ts); a body dropped by a copy
 * (HEAD, 204/304) is cancelled so its producer stops and those tasks start.
 */
const STREAMED = Symbol("webfw.streamed");
type Marked = globalThis.Response & { [STREAMED]?: true };

/** A response streaming `body`, marked. */
export function streamedResponse(body: ReadableStream<Uint8Array>, init: ResponseInit): globalThis.Response {
  return markStreamed(new globalThis.Response(body, init));
}

/** Marks `response` as streamed (a copy that shares a streamed body). */
export function markStreamed<R extends globalThis.Response>(response: R): R {
  (response as Marked)[STREAMED] = true;
  return response;
}

/** True when `response`'s body is a stream webfw made (see above). */
export function isStreamed(response: globalThis.Response): boolean {
  return (response as Marked)[STREAMED] === true;
}
