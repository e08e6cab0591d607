import { describe, expect, test } from "bun:test";
import { isCompressibleType } from "../../src/compression/eligible.ts";
import { ENCODINGS, negotiate } from "../../src/compression/negotiate.ts";
import { resolveCompression } from "../../src/compression/options.ts";

const pick = (header: string | null) => negotiate(header, ENCODINGS);

describe("Accept-Encoding negotiation", () => {
  test("no header or an empty one: no coding", () => {
    expect(pick(null)).toEqual({ ranked: [], identityAllowed: true });
    expect(pick("")).toEqual({ ranked: [], identityAllowed: true });
  });

  test("equal q-values follow the server's order; q-values win over it", () => {
    expect(pick("gzip, deflate, br, zstd").ranked).toEqual(["zstd", "br", "gzip"]);
    expect(pick("gzip;q=1, br;q=0.8, zstd;q=0.5").ranked).toEqual(["gzip", "br", "zstd"]);
    expect(pick("br;q=0.9, gzip").ranked).toEqual(["gzip", "br"]);
    expect(negotiate("gzip, br, zstd", ["gzip", "br"]).ranked).toEqual(["gzip", "br"]);
  });

  test("q=0 refuses a coding; * covers the unlisted ones", () => {
    expect(pick("gzip, br;q=0").ranked).toEqual(["gzip"]);
    expect(pick("*").ranked).toEqual(["zstd", "br", "gzip"]);
    expect(pick("*;q=0.5, gzip").ranked).toEqual(["gzip", "zstd", "br"]);
    expect(pick("*;q=0, gzip").ranked).toEqual(["gzip"]);
    expect(pick("*, zstd;q=0").ranked).toEqual(["br", "gzip"]);
  });

  test("identity: refused by identity;q=0 or *;q=0, preferred when its q is higher", () => {
    expect(pick("identity;q=0")).toEqual({ ranked: [], identityAllowed: false });
    expect(pick("gzip, identity;q=0")).toEqual({ ranked: ["gzip"], identityAllowed: false });
    expect(pick("*;q=0, br").identityAllowed).toBe(false);
    expect(pick("*;q=0, identity, br").identityAllowed).toBe(true);
    expect(pick("identity;q=1, gzip;q=0.5").ranked).toEqual([]);
    expect(pick("identity").ranked).toEqual([]);
  });

  test("x-gzip, case, spaces and parameters", () => {
    expect(pick("x-gzip").ranked).toEqual(["gzip"]);
    expect(pick("  GZIP ; Q=0.7 ,BR").ranked).toEqual(["br", "gzip"]);
  });

  test("malformed entries are ignored, never an error", () => {
    for (const header of [
      "gzip;q=abc",
      "gzip;q=1.5",
      "gzip;q=-1",
      "gzip;q=0.1234",
      ",,,",
      ";q=1",
      "gzip;q=",
    ]) {
      expect(pick(header).ranked).toEqual([]);
    }
    expect(pick("gzip;q=2, br").ranked).toEqual(["br"]);
    expect(pick("br;level=9").ranked).toEqual(["br"]);
  });
});

describe("compressible types", () => {
  test("text and structured text yes; images, archives, event streams no", () => {
    for (const type of [
      "text/html; charset=utf-8",
      "application/json",
      "application/problem+json",
      "image/svg+xml",
      "application/javascript",
      "text/css",
      "application/xml",
    ]) {
      expect(isCompressibleType(type)).toBe(true);
    }
    for (const type of [
      "image/png",
      "application/zip",
      "application/octet-stream",
      "text/event-stream",
      "video/mp4",
      "font/woff2",
    ]) {
      expect(isCompressibleType(type)).toBe(false);
    }
    expect(isCompressibleType(null)).toBe(false);
  });
});

describe("compression options", () => {
  test("defaults, and off", () => {
    expect(resolveCompression(undefined)).toBeNull();
    expect(resolveCompression(false)).toBeNull();
    expect(resolveCompression(true)).toEqual({
      encodings: ["zstd", "br", "gzip"],
      threshold: 1024,
      level: { zstd: 3, br: 4, gzip: 6 },
    });
    expect(resolveCompression({ encodings: ["gzip"], level: 9, threshold: 0 })).toEqual({
      encodings: ["gzip"],
      threshold: 0,
      level: { zstd: 9, br: 9, gzip: 9 },
    });
  });

  test("values that cannot work are refused at construction", () => {
    expect(() => resolveCompression({ encodings: [] })).toThrow("compression.encodings must list");
    expect(() => resolveCompression({ encodings: ["deflate" as never] })).toThrow("unknown coding 'deflate'");
    expect(() => resolveCompression({ threshold: -1 })).toThrow("compression.threshold");
    expect(() => resolveCompression({ level: { gzip: 10 } })).toThrow(
      "level for gzip must be an integer from 1 to 9",
    );
    expect(() => resolveCompression({ level: 12 })).toThrow("level for br must be an integer from 0 to 11");
    expect(() => resolveCompression("yes" as never)).toThrow("compression must be true, false");
  });
});
