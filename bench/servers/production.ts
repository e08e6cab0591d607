/**
 * Servers of the production-essentials bench (bench/production.ts, issue #17): one process per
 * variant, chosen by BENCH_PROD. TLS material comes from BENCH_TLS_CERT / BENCH_TLS_KEY.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { compress } from "hono/compress";
import { Webfw } from "../../src/index.ts";
import { announce, HELLO } from "../lib/ready.ts";

const variant = process.env.BENCH_PROD ?? "";
const tls = () => ({ cert: process.env.BENCH_TLS_CERT ?? "", key: process.env.BENCH_TLS_KEY ?? "" });

/** About 64 KiB of JSON, the same objects for every server. */
export const REPORT = Array.from({ length: 640 }, (_, i) => ({
  id: i,
  name: `customer ${i}`,
  email: `customer${i}@example.com`,
  plan: ["free", "pro", "team"][i % 3],
  active: i % 7 !== 0,
}));

switch (variant) {
  case "raw-h2": {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { cert: Bun.file(tls().cert), key: Bun.file(tls().key) },
      http2: true,
      routes: { "/": () => new Response(HELLO) },
    });
    announce(server.port);
    break;
  }
  case "webfw-h2": {
    const app = new Webfw(import.meta.path, { openapi: false });
    app.get("/", () => HELLO);
    const server = await app.start({
      port: 0,
      accessLog: false,
      handleSignals: false,
      tls: tls(),
      http2: true,
    });
    announce(server.port);
    break;
  }
  case "raw-json": {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      routes: { "/report": () => Response.json(REPORT) },
    });
    announce(server.port);
    break;
  }
  case "webfw-json":
  case "webfw-compress": {
    const app = new Webfw(import.meta.path, { openapi: false, compression: variant === "webfw-compress" });
    app.get("/report", () => REPORT);
    const server = await app.start({ port: 0, accessLog: false, handleSignals: false });
    announce(server.port);
    break;
  }
  case "hono-compress": {
    const app = new Hono();
    app.use(compress());
    app.get("/report", (c) => c.json(REPORT));
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: app.fetch });
    announce(server.port);
    break;
  }
  case "webfw-upload": {
    const dir = process.env.BENCH_UPLOAD_DIR ?? tmpdir();
    const app = new Webfw(import.meta.path, { openapi: false });
    app.post(
      "/upload",
      async (request) => {
        let total = 0;
        for await (const part of request.parts()) {
          total +=
            part.fileName === null
              ? (await part.bytes()).byteLength
              : await part.saveTo(join(dir, "upload.bin"));
        }
        return { total };
      },
      { body: "stream" },
    );
    const server = await app.start({ port: 0, accessLog: false, handleSignals: false });
    announce(server.port);
    break;
  }
  default:
    throw new Error(`production bench: unknown BENCH_PROD ${JSON.stringify(variant)}`);
}
