/**
 * examples/caching.ts with its in-process store (no REDIS_URL), driven by curl: a hit with `Age`,
 * a 304 for the ETag, an update that drops its product, a greeting per language, a per-user page
 * keyed by the identity. test/cache/redis.test.ts runs the same example on Redis, over processes.
 */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import app from "../../examples/caching.ts";
import type { ServerHandle } from "../../src/index.ts";
import { testWithProgram } from "../helpers/system-program.ts";
import { curl } from "../helpers/tls.ts";

describe("examples/caching.ts", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
  });
  afterAll(() => server.stop());

  testWithProgram(
    "curl",
    "apt-get install curl",
    "curl sees hits, 304s, invalidations and per-user entries",
    async () => {
      const first = await curl(`${server.url}/report`);
      expect(first.status).toBe(200);
      expect(first.headers["cache-status"]).toBe("webfw; fwd=uri-miss; stored");
      await Bun.sleep(1000);
      const second = await curl(`${server.url}/report`);
      expect(second.body).toBe(first.body);
      expect(second.headers.age).toBe("1");
      expect(second.headers["cache-control"]).toBe("public, max-age=10, stale-while-revalidate=60");
      const etag = second.headers.etag as string;
      const notModified = await curl(`${server.url}/report`, ["-H", `If-None-Match: ${etag}`]);
      expect(notModified.status).toBe(304);

      const chair = await curl(`${server.url}/products/1`);
      expect(JSON.parse(chair.body).name).toBe("chair");
      expect((await curl(`${server.url}/products/1`)).headers["cache-status"]).toStartWith("webfw; hit");
      const put = await curl(`${server.url}/products/1`, [
        "-X",
        "PUT",
        "-H",
        "Content-Type: application/json",
        "-d",
        '{"name":"lamp"}',
      ]);
      expect(put.status).toBe(200);
      const lamp = await curl(`${server.url}/products/1`);
      expect(JSON.parse(lamp.body).name).toBe("lamp");
      expect(lamp.headers["cache-status"]).toContain("fwd=uri-miss");
      const bad = await curl(`${server.url}/products/1`, [
        "-X",
        "PUT",
        "-H",
        "Content-Type: application/json",
        "-d",
        '{"name":""}',
      ]);
      expect(bad.status).toBe(400);
      expect((await curl(`${server.url}/products/404`)).status).toBe(404);

      expect((await curl(`${server.url}/greeting`, ["-H", "Accept-Language: fr"])).body).toBe("bonjour");
      const en = await curl(`${server.url}/greeting`, ["-H", "Accept-Language: en"]);
      expect(en.body).toBe("hello");
      expect(en.headers.vary).toBe("accept-language");

      const ann = await curl(`${server.url}/me`, ["-u", "ann:ann-password"]);
      expect(JSON.parse(ann.body).user).toBe("ann");
      const bob = await curl(`${server.url}/me`, ["-u", "bob:bob-password"]);
      expect(JSON.parse(bob.body).user).toBe("bob");
      expect(
        (await curl(`${server.url}/me`, ["-u", "ann:ann-password"])).headers["cache-status"],
      ).toStartWith("webfw; hit");
      expect((await curl(`${server.url}/me`, ["-u", "ann:wrong"])).status).toBe(401);
    },
  );
});
