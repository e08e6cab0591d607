/**
 * The json ladder's steps (bench/lib/json-ladder.ts, docs/performance.md "Issue 32, sixth pass: the
 * POST shell") each answer what the step says: the echo steps the body they were sent, the `-const`
 * steps the constant object. A step that answered something else would be counting other work.
 */
import { describe, expect, test } from "bun:test";
import { JSON_LADDER } from "../../bench/lib/json-ladder.ts";

const BODY = { id: 7, name: "ladder", tags: ["x"], nested: { ok: false, ratio: 2 } };
const CONSTANT = { id: 42, name: "bench", tags: ["a", "b", "c"], nested: { ok: true, ratio: 0.5 } };

function post(): Request {
  const text = JSON.stringify(BODY);
  return new Request("http://127.0.0.1/json", {
    method: "POST",
    body: text,
    headers: { "content-type": "application/json", "content-length": String(text.length) },
  });
}

describe("json ladder", () => {
  for (const [name, route] of Object.entries(JSON_LADDER)) {
    test(name, async () => {
      const response = await route(post());
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toStartWith("application/json");
      expect(await response.json()).toEqual(
        name.endsWith("-const") || name.includes("-const-") ? CONSTANT : BODY,
      );
    });
  }

  test("has the steps docs/performance.md names", () => {
    for (const step of [
      "native",
      "bytes-parse",
      "bytes-const",
      "bytes-const-headers",
      "webfw-read-const",
      "unread-const",
    ])
      expect(JSON_LADDER[step]).toBeFunction();
  });
});
