import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { contentDisposition } from "../../src/files/content-disposition.ts";
import { parseRange } from "../../src/files/range.ts";
import { fileResponse } from "../../src/files/serve-file.ts";
import { HttpError } from "../../src/response/errors.ts";
import { randomBytes } from "../body/multipart-builder.ts";

let dir: string;
let server: Server<unknown>;
const TEXT = "0123456789abcdefghijklmnopqrstuvwxyz".repeat(10); // 360 bytes
const BIG = randomBytes(5 * 1024 * 1024, 7);
const MTIME = new Date("2024-03-01T12:00:00Z");

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "webfw-files-"));
  writeFileSync(join(dir, "text.txt"), TEXT);
  writeFileSync(join(dir, "page.html"), "<h1>hi</h1>");
  writeFileSync(join(dir, "big.bin"), BIG);
  writeFileSync(join(dir, "empty.txt"), "");
  writeFileSync(join(dir, "noext"), "data");
  mkdirSync(join(dir, "folder"));
  for (const name of ["text.txt", "page.html", "big.bin", "empty.txt", "noext"])
    utimesSync(join(dir, name), MTIME, MTIME);

  // /<file>?name=…&type=…&disposition=… serves the file with those options.
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const opts: Parameters<typeof fileResponse>[2] = {};
      if (url.searchParams.has("name")) opts.fileName = url.searchParams.get("name")!;
      if (url.searchParams.has("type")) opts.contentType = url.searchParams.get("type")!;
      const disposition = url.searchParams.get("disposition");
      if (disposition === "inline" || disposition === "attachment") opts.disposition = disposition;
      try {
        return await fileResponse(join(dir, decodeURIComponent(url.pathname.slice(1))), request, opts);
      } catch (error) {
        if (error instanceof HttpError) return new Response(error.message, { status: error.status });
        throw error;
      }
    },
  });
});

afterAll(() => {
  server.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
  fetch(`http://127.0.0.1:${server.port}${path}`, { headers, method });

describe("fileResponse", () => {
  test("200 with type, length, validators and Accept-Ranges; no disposition without a name", async () => {
    const response = await get("/text.txt");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(response.headers.get("content-length")).toBe("360");
    expect(response.headers.get("etag")).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(response.headers.get("last-modified")).toBe(MTIME.toUTCString());
    expect(response.headers.get("accept-ranges")).toBe("bytes");
    expect(response.headers.has("content-disposition")).toBe(false);
    expect(await response.text()).toBe(TEXT);
  });

  test("content types from the extension, from fileName, or given", async () => {
    expect((await get("/page.html")).headers.get("content-type")).toMatch(/^text\/html/);
    expect((await get("/noext")).headers.get("content-type")).toBe("application/octet-stream");
    expect((await get("/noext?name=report.pdf")).headers.get("content-type")).toBe("application/pdf");
    expect((await get("/text.txt?type=application/x-custom")).headers.get("content-type")).toBe(
      "application/x-custom",
    );
  });

  test("a 5 MB binary file arrives byte-exact", async () => {
    const response = await get("/big.bin");
    const body = new Uint8Array(await response.arrayBuffer());
    expect(body.length).toBe(BIG.length);
    expect(Buffer.compare(Buffer.from(body), Buffer.from(BIG))).toBe(0);
  });

  test("an empty file is 200 with an empty body, and ranges do not apply to it", async () => {
    for (const headers of [{}, { range: "bytes=0-" }, { range: "bytes=-5" }] as Record<string, string>[]) {
      const response = await get("/empty.txt", headers);
      expect(response.status).toBe(200);
      expect(response.headers.has("content-range")).toBe(false);
      expect(await response.text()).toBe("");
    }
  });

  test("missing files and directories are 404", async () => {
    expect((await get("/nope.txt")).status).toBe(404);
    expect((await get("/folder")).status).toBe(404);
    await expect(fileResponse(join(dir, "nope"), new Request("http://x/"))).rejects.toMatchObject({
      status: 404,
    });
  });

  test("HEAD has the headers and no body", async () => {
    const response = await get("/text.txt", {}, "HEAD");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-length")).toBe("360");
    expect(response.headers.get("etag")).not.toBeNull();
    expect(await response.text()).toBe("");
  });

  describe("Content-Disposition", () => {
    test("attachment with the given name", async () => {
      const response = await get("/text.txt?name=report.txt");
      expect(response.headers.get("content-disposition")).toBe('attachment; filename="report.txt"');
    });

    test("inline when asked", async () => {
      const response = await get("/text.txt?name=r.txt&disposition=inline");
      expect(response.headers.get("content-disposition")).toBe('inline; filename="r.txt"');
    });

    test("non-ASCII names get an ASCII fallback and filename* (RFC 8187)", async () => {
      const response = await get(`/text.txt?name=${encodeURIComponent("résumé €.txt")}`);
      expect(response.headers.get("content-disposition")).toBe(
        "attachment; filename=\"r_sum_ _.txt\"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%E2%82%AC.txt",
      );
    });

    test("a name cannot inject headers or break the quoting", async () => {
      const response = await get(`/text.txt?name=${encodeURIComponent('a"b\r\nSet-Cookie: x=1.txt')}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("set-cookie")).toBeNull();
      expect(response.headers.get("content-disposition")).toBe(
        "attachment; filename=\"a_bSet-Cookie: x=1.txt\"; filename*=UTF-8''a%22bSet-Cookie%3A%20x%3D1.txt",
      );
    });

    test("unit: paths are stripped, empty names give a bare type", () => {
      expect(contentDisposition("/etc/passwd")).toBe('attachment; filename="passwd"');
      expect(contentDisposition("C:\\x\\y.txt", "inline")).toBe('inline; filename="y.txt"');
      expect(contentDisposition("")).toBe("attachment");
      expect(contentDisposition("it's (1).txt")).toBe('attachment; filename="it\'s (1).txt"');
      expect(contentDisposition("日本.txt")).toBe(
        "attachment; filename=\"__.txt\"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.txt",
      );
      expect(contentDisposition("ü'(x)*.txt")).toContain("filename*=UTF-8''%C3%BC%27%28x%29%2A.txt");
    });
  });

  describe("revalidation", () => {
    test("If-None-Match with the ETag is 304 without a body", async () => {
      const etag = (await get("/text.txt")).headers.get("etag")!;
      for (const value of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
        const response = await get("/text.txt", { "if-none-match": value });
        expect(response.status).toBe(304);
        expect(response.headers.get("etag")).toBe(etag);
        expect(await response.text()).toBe("");
      }
    });

    test("If-None-Match with another tag is 200, even when If-Modified-Since would say 304", async () => {
      const response = await get("/text.txt", {
        "if-none-match": '"stale"',
        "if-modified-since": new Date(MTIME.getTime() + 60_000).toUTCString(),
      });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(TEXT);
    });

    test("If-Modified-Since at or after the modification time is 304; before it is 200", async () => {
      expect((await get("/text.txt", { "if-modified-since": MTIME.toUTCString() })).status).toBe(304);
      expect(
        (await get("/text.txt", { "if-modified-since": new Date(MTIME.getTime() + 1000).toUTCString() }))
          .status,
      ).toBe(304);
      expect(
        (await get("/text.txt", { "if-modified-since": new Date(MTIME.getTime() - 1000).toUTCString() }))
          .status,
      ).toBe(200);
      expect((await get("/text.txt", { "if-modified-since": "not a date" })).status).toBe(200);
    });

    test("a changed file gets a new ETag", async () => {
      const before = (await get("/noext")).headers.get("etag");
      const later = new Date(MTIME.getTime() + 5000);
      utimesSync(join(dir, "noext"), later, later);
      const response = await get("/noext", { "if-none-match": before! });
      expect(response.status).toBe(200);
      expect(response.headers.get("etag")).not.toBe(before);
    });

    test("conditional headers do not apply to POST", async () => {
      const etag = (await get("/text.txt")).headers.get("etag")!;
      expect((await get("/text.txt", { "if-none-match": etag }, "POST")).status).toBe(200);
    });
  });

  describe("ranges", () => {
    const cases: [string, number, number][] = [
      ["bytes=0-9", 0, 9],
      ["bytes=10-19", 10, 19],
      ["bytes=-100", 260, 359],
      ["bytes=350-", 350, 359],
      ["bytes=300-100000", 300, 359],
      ["bytes=-1000", 0, 359],
      ["bytes=359-359", 359, 359],
      [" Bytes = 5-6 ", 5, 6],
    ];
    for (const [range, start, end] of cases) {
      test(`${range} → 206 bytes ${start}-${end}`, async () => {
        const response = await get("/text.txt", { range });
        expect(response.status).toBe(206);
        expect(response.headers.get("content-range")).toBe(`bytes ${start}-${end}/360`);
        expect(response.headers.get("content-length")).toBe(String(end - start + 1));
        expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
        expect(await response.text()).toBe(TEXT.slice(start, end + 1));
      });
    }

    test("ranges of a 5 MB binary file are byte-exact", async () => {
      const response = await get("/big.bin", { range: "bytes=1048570-2097160" });
      expect(response.status).toBe(206);
      const body = new Uint8Array(await response.arrayBuffer());
      expect(Buffer.compare(Buffer.from(body), Buffer.from(BIG.subarray(1048570, 2097161)))).toBe(0);
    });

    for (const range of ["bytes=360-", "bytes=1000-2000", "bytes=-0"]) {
      test(`${range} is 416 with Content-Range bytes */360`, async () => {
        const response = await get("/text.txt", { range });
        expect(response.status).toBe(416);
        expect(response.headers.get("content-range")).toBe("bytes */360");
      });
    }

    for (const range of [
      "bytes=abc",
      "items=0-1",
      "bytes=9-3",
      "bytes=",
      "bytes=-",
      "bytes=1-2-3",
      "0-5",
      "bytes=0-1,5-6",
    ]) {
      test(`${JSON.stringify(range)} is ignored: 200 with the whole file`, async () => {
        const response = await get("/text.txt", { range });
        expect(response.status).toBe(200);
        expect(response.headers.has("content-range")).toBe(false);
        expect(await response.text()).toBe(TEXT);
      });
    }

    test("If-Range with the current ETag or date gives the range, a stale one the whole file", async () => {
      const first = await get("/text.txt");
      const etag = first.headers.get("etag")!;
      expect((await get("/text.txt", { range: "bytes=0-1", "if-range": etag })).status).toBe(206);
      expect((await get("/text.txt", { range: "bytes=0-1", "if-range": MTIME.toUTCString() })).status).toBe(
        206,
      );
      expect((await get("/text.txt", { range: "bytes=0-1", "if-range": '"stale"' })).status).toBe(200);
      expect((await get("/text.txt", { range: "bytes=0-1", "if-range": `W/${etag}` })).status).toBe(200);
      expect(
        (await get("/text.txt", { range: "bytes=0-1", "if-range": "Mon, 01 Jan 2001 00:00:00 GMT" })).status,
      ).toBe(200);
    });

    test("HEAD with a range describes the part", async () => {
      const response = await get("/text.txt", { range: "bytes=0-9" }, "HEAD");
      expect(response.status).toBe(206);
      expect(response.headers.get("content-range")).toBe("bytes 0-9/360");
      expect(await response.text()).toBe("");
    });

    test("unit: parseRange", () => {
      expect(parseRange(null, 10)).toEqual({ kind: "full" });
      expect(parseRange("bytes=0-0", 10)).toEqual({ kind: "partial", start: 0, end: 0 });
      expect(parseRange("bytes=-3", 10)).toEqual({ kind: "partial", start: 7, end: 9 });
      expect(parseRange("bytes=10-", 10)).toEqual({ kind: "unsatisfiable" });
      expect(parseRange("bytes=0-1, 3-4", 10)).toEqual({ kind: "full" });
      expect(parseRange("bytes=0-1,", 10)).toEqual({ kind: "partial", start: 0, end: 1 });
      expect(parseRange("bytes=99999999999999999999-", 10)).toEqual({ kind: "unsatisfiable" });
    });
  });
});
