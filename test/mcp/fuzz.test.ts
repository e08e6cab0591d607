/** Whatever arrives, the endpoint answers a 2xx/4xx with a JSON-RPC body (or 202 empty): never a 5xx, never a throw. */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { buildMcp, endpointOf } from "./fixture.ts";

const endpoint = endpointOf(buildMcp());

async function send(body: string, headers: Record<string, string> = {}) {
  const response = await endpoint.handle(
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    }),
  );
  const text = await response.text();
  return { status: response.status, text };
}

function checkAnswer({ status, text }: { status: number; text: string }): void {
  expect([200, 202, 400]).toContain(status);
  if (status === 202) expect(text).toBe("");
  else {
    const parsed = JSON.parse(text);
    for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
      expect(message.jsonrpc).toBe("2.0");
      expect("result" in message || "error" in message).toBe(true);
    }
  }
}

const methods = fc.constantFrom(
  "initialize",
  "ping",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "notifications/initialized",
  "x",
);
const id = fc.oneof(fc.integer(), fc.string(), fc.constant(0));
const names = fc.constantFrom("add", "greet", "divide", "summarise", "weather", "review", "facts", "nope");
const params = fc.oneof(
  fc.anything(),
  fc.record({
    name: names,
    arguments: fc.dictionary(fc.constantFrom("a", "b", "name", "items", "code"), fc.anything()),
  }),
  fc.record({
    uri: fc.oneof(fc.string(), fc.constantFrom("greeting://x", "users://1/posts/2", "files://a/b")),
  }),
);

describe("fuzz", () => {
  test("arbitrary text bodies", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 200 }), async (body) =>
        checkAnswer(await send(body)),
      ),
      { numRuns: 300 },
    );
  });

  test("arbitrary JSON values", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 6 }), async (value) =>
        checkAnswer(await send(JSON.stringify(value))),
      ),
      { numRuns: 300 },
    );
  });

  test("well-formed envelopes with arbitrary params", async () => {
    await fc.assert(
      fc.asyncProperty(methods, id, params, fc.boolean(), async (method, requestId, p, notify) => {
        const message: Record<string, unknown> = { jsonrpc: "2.0", method, params: p };
        if (!notify) message.id = requestId;
        const answer = await send(JSON.stringify(message));
        checkAnswer(answer);
        if (answer.status === 200 && !notify) expect(JSON.parse(answer.text).id).toEqual(requestId);
      }),
      { numRuns: 500 },
    );
  });
});
