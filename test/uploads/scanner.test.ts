/**
 * The streaming multipart parser against the whole-body one, on the same bodies cut into chunks of
 * every small size: a delimiter (or something that almost is one) split across chunks must come
 * out exactly as when the body is parsed whole.
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_FORM_LIMITS } from "../../src/body/form-types.ts";
import { parseMultipart } from "../../src/body/multipart.ts";
import { uploadLimits } from "../../src/uploads/limits.ts";
import { streamParts } from "../../src/uploads/parts.ts";
import { BOUNDARY, buildMultipart } from "../body/multipart-builder.ts";

const tricky = [
  { name: "a", value: "plain" },
  { name: "b", value: `ends with CR\r` },
  { name: "c", value: `\r\n--${BOUNDARY.slice(0, 10)} almost a delimiter\r\n-` },
  {
    name: "f",
    value: new Uint8Array(3000).map((_, i) => (i % 7 === 0 ? 13 : i % 11 === 0 ? 10 : 45)),
    fileName: "f.bin",
  },
  { name: "e", value: "" },
  { name: "last", value: `--${BOUNDARY}` },
];

function chunked(body: Uint8Array, size: number): globalThis.Request {
  let at = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= body.length) return controller.close();
      controller.enqueue(body.slice(at, at + size));
      at += size;
    },
  });
  return new globalThis.Request("http://localhost/", {
    method: "POST",
    body: stream,
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
  });
}

async function streamed(request: globalThis.Request) {
  const out: { name: string; fileName: string | null; bytes: Uint8Array }[] = [];
  for await (const part of streamParts(request, uploadLimits(DEFAULT_FORM_LIMITS))) {
    out.push({ name: part.name, fileName: part.fileName, bytes: await part.bytes() });
  }
  return out;
}

describe("the streaming parser agrees with the whole-body parser", () => {
  const body = buildMultipart(tricky);
  const whole = parseMultipart(body, `multipart/form-data; boundary=${BOUNDARY}`, DEFAULT_FORM_LIMITS);
  for (const size of [1, 2, 3, 5, 7, 13, 41, 64, 1000, body.length]) {
    test(`chunks of ${size} bytes`, async () => {
      const parts = await streamed(chunked(body, size));
      expect(parts.map((p) => p.name)).toEqual(["a", "b", "c", "f", "e", "last"]);
      for (const part of parts) {
        if (part.fileName === null)
          expect(new TextDecoder().decode(part.bytes)).toBe(whole.fields[part.name] as string);
        else expect(part.bytes).toEqual(whole.files[part.fileName] as Uint8Array);
      }
    });
  }
});
