/**
 * JSON or SSE for one POST (docs/mcp.md): the SDK's transport answers every
 * request with an SSE stream; most calls send nothing but their result, and
 * a plain JSON body is what simple clients, curl and proxies handle best.
 * So the stream is read up to its first message: if that is the answer to
 * the POST's request, the client gets it as `application/json`; if the call
 * sent a notification or a request first (progress, logs, sampling), the
 * client gets the stream, from its first byte, as it flows.
 *
 * A client that accepts only JSON never gets a stream: its call's related
 * notifications are dropped and the answer comes as JSON (what the spec's
 * JSON-only mode does).
 */

const DECODER = new TextDecoder();

/** The `data` of every complete event in `text`, and where the incomplete tail starts. */
function completeEvents(text: string): { data: string[]; consumed: number } {
  const data: string[] = [];
  let consumed = 0;
  for (;;) {
    const end = text.indexOf("\n\n", consumed);
    if (end === -1) break;
    const lines = text.slice(consumed, end).split("\n");
    const payload = lines
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""))
      .join("\n");
    data.push(payload);
    consumed = end + 2;
  }
  return { data, consumed };
}

function isResponse(message: unknown): boolean {
  return (
    typeof message === "object" &&
    message !== null &&
    "id" in message &&
    ("result" in message || "error" in message) &&
    !("method" in message)
  );
}

function parse(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

function jsonResponse(body: string, from: Response): Response {
  const headers = new Headers(from.headers);
  headers.set("content-type", "application/json");
  headers.delete("cache-control");
  headers.delete("connection");
  headers.delete("x-accel-buffering");
  return new Response(body, { status: from.status, headers });
}

/**
 * Reshapes the SDK's SSE answer to a POST that carried `expected` requests
 * (`batch`: the body was an array, so the JSON answer is one too).
 * `streamAllowed`: the client accepts `text/event-stream`.
 */
export async function shapeAnswer(
  response: Response,
  streamAllowed: boolean,
  expected = 1,
  batch = false,
): Promise<Response> {
  const type = response.headers.get("content-type") ?? "";
  if (!type.startsWith("text/event-stream") || response.body === null) return response;
  const reader = response.body.getReader();
  const seen: Uint8Array[] = [];
  let text = "";
  let scanned = 0;
  const answers: string[] = [];
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch {
      break;
    }
    if (chunk.done) break;
    seen.push(chunk.value);
    text += DECODER.decode(chunk.value, { stream: true });
    const { data, consumed } = completeEvents(text.slice(scanned));
    scanned += consumed;
    for (const payload of data) {
      if (payload.trim() === "") continue; // a priming event (resumability) or a keep-alive
      const message = parse(payload);
      if (isResponse(message)) {
        answers.push(payload);
        if (answers.length < expected) continue;
        // The answers came first (or, for a JSON-only client, at last): nothing else to stream.
        await reader.cancel().catch(() => undefined);
        return jsonResponse(batch ? `[${answers.join(",")}]` : payload, response);
      }
      if (streamAllowed) return new Response(replay(seen, reader), response);
      // JSON-only client: drop what came before the answer and keep reading for it.
    }
  }
  // The stream ended without an answer (the session closed mid-call): pass on what there was.
  return new Response(replay(seen, reader), response);
}

/** The bytes already read, then the rest of the stream as it comes. */
function replay(
  seen: Uint8Array[],
  reader: ReadableStreamDefaultReader<Uint8Array>,
): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index < seen.length) {
        controller.enqueue(seen[index++] as Uint8Array);
        return;
      }
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
