import { describe, expect, test } from "bun:test";
import { chunkBytes, iterableToStream } from "../../src/stream/iterable-stream.ts";

const text = (stream: ReadableStream<Uint8Array>) => new Response(stream).text();

describe("iterableToStream", () => {
  test("strings as UTF-8, bytes as is, objects as JSON lines, nullish skipped", async () => {
    async function* gen() {
      yield "héllo ";
      yield new TextEncoder().encode("bytes ");
      yield new Uint16Array([0x4241]).buffer; // "AB" little-endian
      yield null;
      yield undefined;
      yield "";
      yield { a: 1 };
      yield [1, 2];
      yield 42;
    }
    expect(await text(iterableToStream(gen()))).toBe('héllo bytes AB{"a":1}\n[1,2]\n42\n');
  });

  test("sync iterables work too", async () => {
    expect(await text(iterableToStream(["a", "b"]))).toBe("ab");
  });

  test("binary data is byte-exact", async () => {
    const data = new Uint8Array(256).map((_, i) => i);
    async function* gen() {
      yield data.subarray(0, 100);
      yield data.subarray(100);
    }
    const out = new Uint8Array(await new Response(iterableToStream(gen())).arrayBuffer());
    expect(out).toEqual(data);
  });

  test("values are pulled one at a time, as the reader asks", async () => {
    let produced = 0;
    async function* gen() {
      for (let i = 0; i < 100; i++) {
        produced++;
        yield `${i},`;
      }
    }
    const reader = iterableToStream(gen()).getReader();
    await reader.read();
    await Bun.sleep(10);
    expect(produced).toBeLessThanOrEqual(2);
    await reader.cancel();
  });

  test("cancel calls return(): the generator's finally runs", async () => {
    let finallyRan = false;
    async function* gen() {
      try {
        for (;;) yield "x";
      } finally {
        finallyRan = true;
      }
    }
    const reader = iterableToStream(gen()).getReader();
    await reader.read();
    await reader.cancel();
    await Bun.sleep(5);
    expect(finallyRan).toBe(true);
  });

  test("an abort signal ends the stream and stops the generator", async () => {
    let finallyRan = false;
    async function* gen() {
      try {
        for (;;) {
          yield "x";
          await Bun.sleep(1);
        }
      } finally {
        finallyRan = true;
      }
    }
    const ac = new AbortController();
    const reader = iterableToStream(gen(), ac.signal).getReader();
    await reader.read();
    ac.abort();
    let done = false;
    for (let i = 0; i < 10 && !done; i++) done = (await reader.read()).done;
    expect(done).toBe(true);
    for (let i = 0; i < 50 && !finallyRan; i++) await Bun.sleep(2);
    expect(finallyRan).toBe(true);
  });

  test("an already aborted signal gives an empty stream", async () => {
    const ac = new AbortController();
    ac.abort();
    expect(await text(iterableToStream(["never"], ac.signal))).toBe("");
  });

  test("a throwing source errors the stream after the values it gave", async () => {
    async function* gen() {
      yield "ok";
      throw new Error("boom");
    }
    const reader = iterableToStream(gen()).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("ok");
    await expect(reader.read()).rejects.toThrow("boom");
  });

  test("over HTTP, a streamed body arrives whole", async () => {
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch() {
        async function* lines() {
          for (let i = 0; i < 50; i++) yield { i };
        }
        return new Response(iterableToStream(lines()), {
          headers: { "content-type": "application/x-ndjson" },
        });
      },
    });
    try {
      const body = await (await fetch(`http://127.0.0.1:${server.port}/`)).text();
      const values = body
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(values).toHaveLength(50);
      expect(values[49]).toEqual({ i: 49 });
    } finally {
      server.stop(true);
    }
  });

  test("chunkBytes", () => {
    expect(chunkBytes("")).toBeNull();
    expect(chunkBytes(null)).toBeNull();
    expect(new TextDecoder().decode(chunkBytes(true)!)).toBe("true\n");
    expect(new TextDecoder().decode(chunkBytes(new DataView(new Uint8Array([65, 66]).buffer))!)).toBe("AB");
  });
});
