/**
 * Response compression over real sockets (src/compression/): every coding decoded and
 * compared byte for byte with the uncompressed answer (Bun's decoders, and curl
 * --compressed), every edge the contract names, streams compressed as they flow,
 * precompressed const routes and serveDirectory siblings.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import zlib from "node:zlib";
import { type ServerHandle, serveFile, sse, Webfw } from "../../src/index.ts";
import { testWithProgram } from "../helpers/system-program.ts";
import { curl } from "../helpers/tls.ts";

type Coding = "zstd" | "br" | "gzip";
const CODINGS: Coding[] = ["zstd", "br", "gzip"];

function decode(coding: string | null, bytes: Uint8Array): Uint8Array {
  if (coding === "gzip") return Bun.gunzipSync(bytes as Uint8Array<ArrayBuffer>);
  if (coding === "br") return new Uint8Array(zlib.brotliDecompressSync(bytes));
  if (coding === "zstd") return new Uint8Array(Bun.zstdDecompressSync(bytes));
  if (coding === null) return bytes;
  throw new Error(`unexpected coding ${coding}`);
}

const PAYLOAD = Array.from({ length: 900 }, (_, i) => ({
  id: i,
  name: `user ${i}`,
  email: `u${i}@example.com`,
}));
const BIG_TEXT = "the quick brown fox jumps over the lazy dog\n".repeat(2000);
const STREAM_GAP_MS = 400;

let dir: string;
let server: ServerHandle;
let plain: ServerHandle;
let streamClosed = false;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "webfw-compression-"));
  writeFileSync(join(dir, "big.txt"), BIG_TEXT);
  writeFileSync(join(dir, "app.js"), `console.log(${JSON.stringify(BIG_TEXT)});`);
  // A sibling with different content, so the test sees which file was sent.
  writeFileSync(join(dir, "app.js.br"), zlib.brotliCompressSync("/* from app.js.br */"));
  writeFileSync(join(dir, "app.js.zst"), Bun.zstdCompressSync("/* from app.js.zst */"));
  writeFileSync(join(dir, "style.css"), "body { color: red; }\n".repeat(300));
  writeFileSync(join(dir, "logo.png"), new Uint8Array(4096).fill(7));

  const app = new Webfw(import.meta.path, { compression: true });
  app.get("/json", () => PAYLOAD);
  app.get("/small", () => "tiny");
  app.get("/const", () => PAYLOAD, { const: true });
  app.get("/const-small", () => "tiny const", { const: true });
  app.get(
    "/png",
    () => new Response(new Uint8Array(8192).fill(1), { headers: { "content-type": "image/png" } }),
  );
  app.get(
    "/encoded",
    () =>
      new Response(Bun.gzipSync(BIG_TEXT), {
        headers: { "content-type": "text/plain", "content-encoding": "gzip" },
      }),
  );
  app.get(
    "/no-transform",
    () =>
      new Response(BIG_TEXT, {
        headers: { "content-type": "text/plain", "cache-control": "public, no-transform" },
      }),
  );
  app.get("/sse", () =>
    sse(
      (async function* () {
        yield { data: "one" };
        yield { data: BIG_TEXT.slice(0, 3000) };
      })(),
    ),
  );
  app.get(
    "/stream",
    () =>
      new Response(
        (async function* () {
          try {
            yield "first line\n".repeat(200);
            await Bun.sleep(STREAM_GAP_MS);
            yield "second line\n".repeat(200);
          } finally {
            streamClosed = true;
          }
        })() as unknown as BodyInit,
        { headers: { "content-type": "text/plain;charset=utf-8" } },
      ),
  );
  app.get(
    "/endless",
    () =>
      new Response(
        (async function* () {
          try {
            for (;;) {
              yield "tick\n".repeat(100);
              await Bun.sleep(20);
            }
          } finally {
            streamClosed = true;
          }
        })() as unknown as BodyInit,
        { headers: { "content-type": "text/plain" } },
      ),
  );
  app.get("/file", () => serveFile(join(dir, "big.txt")));
  app.get("/nothing", () => new Response(null, { status: 204 }));
  app.post("/created", () => [PAYLOAD, 201]);
  app.serveDirectory({ route: "/static", directoryPath: dir });
  server = await app.start({ port: 0 });

  const off = new Webfw(import.meta.path);
  off.get("/json", () => PAYLOAD);
  off.get("/const", () => PAYLOAD, { const: true });
  off.serveDirectory({ route: "/static", directoryPath: dir, precompressed: true });
  plain = await off.start({ port: 0 });
});

afterAll(async () => {
  await server?.stop();
  await plain?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The raw answer: no decoding by the client. */
async function raw(path: string, acceptEncoding: string | null, init: RequestInit = {}, base = server.url) {
  const headers: Record<string, string> = {};
  // Bun's fetch sends its own Accept-Encoding when none is given; "identity" stands for none.
  headers["accept-encoding"] = acceptEncoding ?? "identity";
  const response = await fetch(`${base}${path}`, { ...init, headers, decompress: false } as RequestInit);
  return { response, bytes: new Uint8Array(await response.arrayBuffer()) };
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("every coding decodes to the same bytes", () => {
  for (const coding of CODINGS) {
    test(`${coding}: JSON from a handler`, async () => {
      const identity = await raw("/json", null);
      expect(identity.response.headers.get("content-encoding")).toBeNull();
      expect(identity.response.headers.get("vary")).toBe("Accept-Encoding");
      const { response, bytes } = await raw("/json", coding);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-encoding")).toBe(coding);
      expect(response.headers.get("vary")).toBe("Accept-Encoding");
      expect(response.headers.get("content-type")).toStartWith("application/json");
      expect(Number(response.headers.get("content-length"))).toBe(bytes.byteLength);
      expect(bytes.byteLength).toBeLessThan(identity.bytes.byteLength / 4);
      expect(decode(coding, bytes)).toEqual(identity.bytes);
      expect(JSON.parse(text(identity.bytes))).toEqual(PAYLOAD);
    });

    test(`${coding}: a precompressed const route, many times`, async () => {
      const identity = await raw("/const", null);
      expect(identity.response.headers.get("vary")).toBe("Accept-Encoding");
      for (let i = 0; i < 3; i++) {
        const { response, bytes } = await raw("/const", coding);
        expect(response.headers.get("content-encoding")).toBe(coding);
        expect(decode(coding, bytes)).toEqual(identity.bytes);
      }
    });

    test(`${coding}: other statuses with a body (201)`, async () => {
      const { response, bytes } = await raw("/created", coding, { method: "POST" });
      expect(response.status).toBe(201);
      expect(JSON.parse(text(decode(coding, bytes)))).toEqual(PAYLOAD);
    });
  }

  testWithProgram("curl", "apt-get install curl", "curl --compressed decodes each coding", async () => {
    const identity = (await raw("/json", null)).bytes;
    for (const coding of CODINGS) {
      for (const path of ["/json", "/const", "/stream"]) {
        const result = await curl(`${server.url}${path}`, [
          "--compressed",
          "-H",
          `Accept-Encoding: ${coding}`,
        ]);
        expect([path, result.code, result.headers["content-encoding"]]).toEqual([path, 0, coding]);
        if (path !== "/stream") expect(result.bytes).toEqual(identity);
        else expect(result.body).toBe(`${"first line\n".repeat(200)}${"second line\n".repeat(200)}`);
      }
    }
    // No Accept-Encoding at all (curl sends none without --compressed): identity.
    const none = await curl(`${server.url}/json`);
    expect(none.headers["content-encoding"]).toBeUndefined();
    expect(none.bytes).toEqual(identity);
  });
});

describe("negotiation over the wire", () => {
  test("q-values, *, x-gzip, identity;q=0", async () => {
    const cases: [string, string | null][] = [
      ["gzip;q=0.5, br;q=0.8", "br"],
      ["gzip, br;q=0", "gzip"],
      ["*", "zstd"],
      ["*;q=0, gzip", "gzip"],
      ["x-gzip", "gzip"],
      ["deflate", null],
      ["identity;q=1, gzip;q=0.5", null],
      ["gzip;q=oops", null],
    ];
    for (const [header, expected] of cases) {
      const { response, bytes } = await raw("/json", header);
      expect([header, response.headers.get("content-encoding")]).toEqual([header, expected]);
      expect(JSON.parse(text(decode(expected, bytes)))).toEqual(PAYLOAD);
    }
  });

  test("identity;q=0 compresses even below the threshold", async () => {
    const normal = await raw("/small", "gzip");
    expect(normal.response.headers.get("content-encoding")).toBeNull();
    expect(text(normal.bytes)).toBe("tiny");
    const forced = await raw("/small", "gzip, identity;q=0");
    expect(forced.response.headers.get("content-encoding")).toBe("gzip");
    expect(text(decode("gzip", forced.bytes))).toBe("tiny");
  });
});

describe("what is not compressed", () => {
  test("small bodies (below the threshold), const ones too; Vary still says it could vary", async () => {
    for (const path of ["/small", "/const-small"]) {
      const { response, bytes } = await raw(path, "gzip, br, zstd");
      expect(response.headers.get("content-encoding")).toBeNull();
      expect(text(bytes)).toStartWith("tiny");
    }
  });

  test("already compressed types and already encoded bodies: untouched, no Vary", async () => {
    const png = await raw("/png", "gzip, br, zstd");
    expect(png.response.headers.get("content-encoding")).toBeNull();
    expect(png.response.headers.get("vary")).toBeNull();
    expect(png.bytes.byteLength).toBe(8192);
    const encoded = await raw("/encoded", "br, zstd, gzip");
    expect(encoded.response.headers.get("content-encoding")).toBe("gzip");
    expect(text(decode("gzip", encoded.bytes))).toBe(BIG_TEXT);
  });

  test("Cache-Control: no-transform", async () => {
    const { response, bytes } = await raw("/no-transform", "gzip, br, zstd");
    expect(response.headers.get("content-encoding")).toBeNull();
    expect(text(bytes)).toBe(BIG_TEXT);
  });

  test("server-sent events", async () => {
    const { response, bytes } = await raw("/sse", "gzip, br, zstd");
    expect(response.headers.get("content-type")).toStartWith("text/event-stream");
    expect(response.headers.get("content-encoding")).toBeNull();
    expect(text(bytes)).toContain("data: one\n\n");
  });

  test("Range requests and their 206 answers", async () => {
    const ranged = await fetch(`${server.url}/file`, {
      headers: { range: "bytes=0-9", "accept-encoding": "gzip, br" },
      decompress: false,
    } as RequestInit);
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get("content-encoding")).toBeNull();
    expect(await ranged.text()).toBe(BIG_TEXT.slice(0, 10));
  });

  test("204 and 304 carry no coding", async () => {
    const empty = await raw("/nothing", "gzip");
    expect(empty.response.status).toBe(204);
    expect(empty.response.headers.get("content-encoding")).toBeNull();
    const first = await raw("/file", "gzip");
    const etag = first.response.headers.get("etag") as string;
    const again = await fetch(`${server.url}/file`, {
      headers: { "if-none-match": etag, "accept-encoding": "gzip" },
      decompress: false,
    } as RequestInit);
    expect(again.status).toBe(304);
    expect(again.headers.get("content-encoding")).toBeNull();
  });

  test("with compression off nothing changes: no Vary, no coding", async () => {
    for (const path of ["/json", "/const"]) {
      const { response, bytes } = await raw(path, "gzip, br, zstd", {}, plain.url);
      expect(response.headers.get("content-encoding")).toBeNull();
      expect(response.headers.get("vary")).toBeNull();
      expect(JSON.parse(text(bytes))).toEqual(PAYLOAD);
    }
  });
});

describe("HEAD, validators", () => {
  test("HEAD gets the headers GET gets (coding and length), no body", async () => {
    for (const path of ["/json", "/const"]) {
      const get = await raw(path, "br");
      const head = await raw(path, "br", { method: "HEAD" });
      expect(head.bytes.byteLength).toBe(0);
      expect(head.response.headers.get("content-encoding")).toBe("br");
      expect(head.response.headers.get("content-length")).toBe(get.response.headers.get("content-length"));
      expect(head.response.headers.get("vary")).toBe("Accept-Encoding");
    }
  });

  test("a strong ETag becomes weak on the compressed form, and still revalidates", async () => {
    const identity = await raw("/file", null);
    const strong = identity.response.headers.get("etag") as string;
    expect(strong).toStartWith('"');
    const compressed = await raw("/file", "zstd");
    expect(compressed.response.headers.get("content-encoding")).toBe("zstd");
    expect(compressed.response.headers.get("etag")).toBe(`W/${strong}`);
    expect(text(decode("zstd", compressed.bytes))).toBe(BIG_TEXT);
    const revalidated = await fetch(`${server.url}/file`, {
      headers: { "if-none-match": `W/${strong}`, "accept-encoding": "zstd" },
      decompress: false,
    } as RequestInit);
    expect(revalidated.status).toBe(304);
  });
});

describe("streamed bodies are compressed as they flow", () => {
  for (const coding of CODINGS) {
    test(`${coding}: the first part arrives before the handler has produced the second`, async () => {
      const started = performance.now();
      const response = await fetch(`${server.url}/stream`, {
        headers: { "accept-encoding": coding },
        decompress: false,
      } as RequestInit);
      expect(response.headers.get("content-encoding")).toBe(coding);
      expect(response.headers.get("content-length")).toBeNull();
      const chunks: Uint8Array[] = [];
      let firstAt = 0;
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        if (chunks.length === 0) firstAt = performance.now() - started;
        chunks.push(chunk);
      }
      const endAt = performance.now() - started;
      expect(endAt - firstAt).toBeGreaterThan(STREAM_GAP_MS / 2);
      // What came before the gap decodes on its own: the encoder flushed it.
      const all = decode(coding, Buffer.concat(chunks));
      expect(text(all)).toBe(`${"first line\n".repeat(200)}${"second line\n".repeat(200)}`);
    });
  }

  test("a client that goes away mid-stream stops the handler's generator", async () => {
    streamClosed = false;
    const controller = new AbortController();
    const response = await fetch(`${server.url}/endless`, {
      headers: { "accept-encoding": "gzip" },
      decompress: false,
      signal: controller.signal,
    } as RequestInit);
    expect(response.headers.get("content-encoding")).toBe("gzip");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort();
    const deadline = Date.now() + 5000;
    while (!streamClosed && Date.now() < deadline) await Bun.sleep(25);
    expect(streamClosed).toBe(true);
  });
});

describe("serveDirectory: precompressed siblings", () => {
  test("the client's preferred sibling is sent as is, with the original's type", async () => {
    const br = await raw("/static/app.js", "br, gzip");
    expect(br.response.headers.get("content-encoding")).toBe("br");
    expect(br.response.headers.get("content-type")).toStartWith("text/javascript");
    expect(br.response.headers.get("vary")).toBe("Accept-Encoding");
    expect(text(decode("br", br.bytes))).toBe("/* from app.js.br */");
    const zst = await raw("/static/app.js", "zstd");
    expect(text(decode("zstd", zst.bytes))).toBe("/* from app.js.zst */");
  });

  test("no sibling for the coding: the original, compressed per request; none accepted: the original", async () => {
    const gzip = await raw("/static/app.js", "gzip");
    expect(gzip.response.headers.get("content-encoding")).toBe("gzip");
    expect(text(decode("gzip", gzip.bytes))).toBe(`console.log(${JSON.stringify(BIG_TEXT)});`);
    const css = await raw("/static/style.css", "br");
    expect(css.response.headers.get("content-encoding")).toBe("br");
    expect(text(decode("br", css.bytes))).toBe("body { color: red; }\n".repeat(300));
    const identity = await raw("/static/app.js", null);
    expect(identity.response.headers.get("content-encoding")).toBeNull();
    expect(identity.response.headers.get("vary")).toBe("Accept-Encoding");
    const png = await raw("/static/logo.png", "gzip");
    expect(png.response.headers.get("content-encoding")).toBeNull();
  });

  test("a sibling keeps its own validators: revalidation, and Range on the encoded bytes", async () => {
    const first = await raw("/static/app.js", "br");
    const etag = first.response.headers.get("etag") as string;
    const identityEtag = (await raw("/static/app.js", null)).response.headers.get("etag");
    expect(etag).not.toBe(identityEtag);
    const again = await fetch(`${server.url}/static/app.js`, {
      headers: { "if-none-match": etag, "accept-encoding": "br" },
      decompress: false,
    } as RequestInit);
    expect(again.status).toBe(304);
  });

  test("precompressed: true serves siblings even with compression off", async () => {
    const br = await raw("/static/app.js", "br", {}, plain.url);
    expect(br.response.headers.get("content-encoding")).toBe("br");
    expect(text(decode("br", br.bytes))).toBe("/* from app.js.br */");
    const gzip = await raw("/static/app.js", "gzip", {}, plain.url);
    expect(gzip.response.headers.get("content-encoding")).toBeNull();
    expect(gzip.response.headers.get("vary")).toBe("Accept-Encoding");
  });
});
