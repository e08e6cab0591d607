/**
 * The upload bounds (src/uploads/gate.ts, docs/uploads.md#bounds) over real sockets: a flood of
 * uploads that clients abandon halfway keeps at most `maxInFlight` partial files and gives its
 * memory back within seconds (issue 39); past the count, 503 with Retry-After before a byte of the
 * body is read; the byte budget refuses a declared length that does not fit and stops a chunked
 * body that crosses it, leaving no partial file (issue 31).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import { BOUNDARY, buildMultipart } from "../body/multipart-builder.ts";

const MiB = 1024 * 1024;
const multipart = { "content-type": `multipart/form-data; boundary=${BOUNDARY}` };

function uploadApp(dir: string, options: ConstructorParameters<typeof Webfw>[1]) {
  const app = new Webfw(import.meta.path, options);
  const seen = { handlers: 0 };
  app.post(
    "/upload",
    async (request) => {
      seen.handlers++;
      const sizes: number[] = [];
      for await (const part of request.parts())
        sizes.push(await part.saveTo(join(dir, `${crypto.randomUUID()}.bin`)));
      return [{ sizes }, 201];
    },
    { body: "stream" },
  );
  return { app, seen };
}

const partFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith(".part")).length;
const rssMiB = () => {
  Bun.gc(true);
  return process.memoryUsage().rss / MiB;
};

/** An upload that sends its head and `bytes` of its first part, then waits (until `end()`). */
async function stalledUpload(port: number, declared: number | null, bytes = 1000) {
  const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
  const framing = declared === null ? "Transfer-Encoding: chunked" : `Content-Length: ${declared}`;
  const start = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"; filename="slow.bin"\r\n\r\n${"s".repeat(bytes)}`;
  const body = declared === null ? `${start.length.toString(16)}\r\n${start}\r\n` : start;
  socket.write(
    `POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${multipart["content-type"]}\r\n${framing}\r\n\r\n${body}`,
  );
  return { end: () => socket.terminate() };
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await Bun.sleep(20);
  }
  return true;
}

describe("uploads abandoned halfway by several clients at once (issue 39)", () => {
  let dir: string;
  let server: ServerHandle;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "webfw-abort-flood-"));
    server = await uploadApp(dir, {}).app.start({ port: 0, host: "127.0.0.1", accessLog: false });
  });
  afterAll(async () => {
    await server.stop(true);
    rmSync(dir, { recursive: true, force: true });
  });

  test("at most maxInFlight partial files at any time; files and memory given back within seconds", async () => {
    const baseline = rssMiB();
    // 4 clients × 150 uploads of 200 KB, 50 sockets at a time each: far more than the default 64 in flight.
    const clients = Array.from({ length: 4 }, () =>
      Bun.spawn(
        [
          process.execPath,
          join(import.meta.dir, "fixtures/abort-client.ts"),
          String(server.port),
          "150",
          "200000",
          "50",
        ],
        { stdout: "inherit", stderr: "inherit" },
      ),
    );
    let most = 0;
    let flooding = true;
    const sampler = (async () => {
      while (flooding) {
        most = Math.max(most, partFiles(dir));
        await Bun.sleep(5);
      }
    })();
    await Promise.all(clients.map((client) => client.exited));
    flooding = false;
    await sampler;
    expect(most).toBeGreaterThan(0);
    // Without the gate every upload opened its file: several hundred at once.
    expect(most).toBeLessThanOrEqual(64);
    expect(await until(() => partFiles(dir) === 0, 5_000)).toBe(true);
    const samples: number[] = [];
    await until(() => {
      samples.push(rssMiB());
      return (samples.at(-1) as number) < baseline + 64;
    }, 5_000);
    expect(samples.at(-1) as number).toBeLessThan(baseline + 64);
  }, 120_000);
});

describe("uploads in flight past maxInFlight: 503 before the body is read", () => {
  test("the third upload is refused with Retry-After; the handler never ran; later ones pass", async () => {
    const dir = mkdtempSync(join(tmpdir(), "webfw-upload-cap-"));
    const { app, seen } = uploadApp(dir, { uploads: { maxInFlight: 2 } });
    const server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
    try {
      const first = await stalledUpload(server.port, 10 * MiB);
      const second = await stalledUpload(server.port, 10 * MiB);
      expect(await until(() => seen.handlers === 2, 5_000)).toBe(true);
      const refused = await fetch(`${server.url}/upload`, {
        method: "POST",
        headers: multipart,
        body: buildMultipart([{ name: "f", value: "x".repeat(1000), fileName: "a.bin" }]),
      });
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("5");
      expect(await refused.text()).toBe("Service Unavailable: too many uploads in flight (limit 2)");
      expect(seen.handlers).toBe(2);
      first.end();
      second.end();
      expect(await until(() => partFiles(dir) === 0, 5_000)).toBe(true);
      // The two abandoned uploads gave their slots back.
      let status = 0;
      for (let attempt = 0; attempt < 50 && status !== 201; attempt++) {
        const response = await fetch(`${server.url}/upload`, {
          method: "POST",
          headers: multipart,
          body: buildMultipart([{ name: "f", value: "ok", fileName: "a.bin" }]),
        });
        status = response.status;
        await response.text();
        if (status !== 201) await Bun.sleep(50);
      }
      expect(status).toBe(201);
    } finally {
      await server.stop(true);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the bytes of uploads in flight (issue 31)", () => {
  let dir: string;
  let server: ServerHandle;
  let seen: { handlers: number };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "webfw-upload-bytes-"));
    const made = uploadApp(dir, { uploads: { maxBytesInFlight: MiB } });
    seen = made.seen;
    server = await made.app.start({ port: 0, host: "127.0.0.1", accessLog: false });
  });
  afterAll(async () => {
    await server.stop(true);
    rmSync(dir, { recursive: true, force: true });
  });

  test("a declared Content-Length that does not fit what is left: 503 before reading; one that fits passes", async () => {
    const held = await stalledUpload(server.port, 700_000);
    expect(await until(() => seen.handlers === 1, 5_000)).toBe(true);
    const before = seen.handlers;
    const tooBig = await fetch(`${server.url}/upload`, {
      method: "POST",
      headers: multipart,
      body: buildMultipart([{ name: "f", value: new Uint8Array(400_000), fileName: "big.bin" }]),
    });
    expect(tooBig.status).toBe(503);
    expect(tooBig.headers.get("retry-after")).toBe("5");
    expect(await tooBig.text()).toBe(
      "Service Unavailable: this upload does not fit in the bytes of uploads in flight (limit 1 MiB)",
    );
    expect(seen.handlers).toBe(before);
    const fits = await fetch(`${server.url}/upload`, {
      method: "POST",
      headers: multipart,
      body: buildMultipart([{ name: "f", value: new Uint8Array(200_000), fileName: "small.bin" }]),
    });
    expect(fits.status).toBe(201);
    expect(((await fits.json()) as { sizes: number[] }).sizes).toEqual([200_000]);
    held.end();
    expect(await until(() => partFiles(dir) === 0, 5_000)).toBe(true);
  });

  test("a chunked upload that crosses the budget while streaming: stopped with 503, its partial file deleted", async () => {
    // Another chunked upload holds 600 KB; this one streams 1 MB more.
    const held = await stalledUpload(server.port, null, 600_000);
    await Bun.sleep(200);
    const chunk = new Uint8Array(64 * 1024).fill(7);
    const head = new TextEncoder().encode(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"; filename="stream.bin"\r\n\r\n`,
    );
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === 0) controller.enqueue(head);
        if (sent >= MiB) {
          controller.enqueue(new TextEncoder().encode(`\r\n--${BOUNDARY}--\r\n`));
          controller.close();
          return;
        }
        sent += chunk.length;
        controller.enqueue(chunk);
        await Bun.sleep(2);
      },
    });
    const response = await fetch(`${server.url}/upload`, { method: "POST", headers: multipart, body });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    expect(await response.text()).toBe(
      "Service Unavailable: upload stopped, the bytes of uploads in flight passed their limit (1 MiB)",
    );
    held.end();
    expect(await until(() => partFiles(dir) === 0, 5_000)).toBe(true);
    expect(readdirSync(dir)).toEqual(readdirSync(dir).filter((name) => !name.endsWith(".part")));
  });
});
