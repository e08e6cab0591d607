import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import app from "../../examples/compression.ts";
import type { ServerHandle } from "../../src/index.ts";
import { testWithProgram } from "../helpers/system-program.ts";
import { curl } from "../helpers/tls.ts";

describe("examples/compression.ts", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await app.start({ port: 0 });
  });
  afterAll(() => server.stop());

  testWithProgram(
    "curl",
    "apt-get install curl",
    "curl --compressed gets each route in a coding it decodes",
    async () => {
      const report = await curl(`${server.url}/report`, ["--compressed"]);
      expect(report.status).toBe(200);
      // curl 7.88 offers deflate, gzip, br, zstd: the server's first preference wins.
      expect(report.headers["content-encoding"]).toBe("zstd");
      expect((JSON.parse(report.body) as { products: unknown[] }).products).toHaveLength(500);
      const catalog = await curl(`${server.url}/catalog`, ["--compressed", "-H", "Accept-Encoding: br"]);
      expect(catalog.headers["content-encoding"]).toBe("br");
      expect(JSON.parse(catalog.body)).toHaveLength(500);
      const feed = await curl(`${server.url}/feed?count=3`, ["--compressed", "-H", "Accept-Encoding: gzip"]);
      expect(feed.headers["content-encoding"]).toBe("gzip");
      expect(
        feed.body
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line).tick),
      ).toEqual([1, 2, 3]);
      const events = await curl(`${server.url}/events`, ["--compressed"]);
      expect(events.headers["content-encoding"]).toBeUndefined();
      expect(events.body).toContain("data: event 3");
    },
  );

  test("the feed streams: the first line arrives before the last is produced", async () => {
    const started = performance.now();
    const response = await fetch(`${server.url}/feed?count=4`, { headers: { "accept-encoding": "zstd" } });
    expect(response.headers.get("content-encoding")).toBe("zstd");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    const firstAt = performance.now() - started;
    expect(new TextDecoder().decode(first.value)).toStartWith('{"tick":1');
    while (!(await reader.read()).done) {}
    expect(performance.now() - started - firstAt).toBeGreaterThan(200);
  });
});
