import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServerHandle } from "../../src/index.ts";

const storage = mkdtempSync(join(tmpdir(), "webfw-example-upload-"));
process.env.UPLOAD_DIR = storage;
const { default: app } = await import("../../examples/streaming-upload.ts");

describe("examples/streaming-upload.ts", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await app.start({ port: 0 });
  });
  afterAll(async () => {
    await server.stop();
    rmSync(storage, { recursive: true, force: true });
  });

  test("a title and two files: 201, both saved under generated names", async () => {
    const form = new FormData();
    form.append("title", "holiday");
    form.append("video", new Blob([new Uint8Array(2_000_000).fill(3)]), "clip.MP4");
    form.append("video", new Blob(["second"]), "../../etc/passwd");
    const response = await fetch(`${server.url}/videos`, { method: "POST", body: form });
    expect(response.status).toBe(201);
    const body = (await response.json()) as { title: string; saved: { file: string; bytes: number }[] };
    expect(body.title).toBe("holiday");
    expect(body.saved.map((s) => s.bytes)).toEqual([2_000_000, 6]);
    expect(body.saved[0]?.file).toMatch(/^[0-9a-f-]{36}\.mp4$/);
    expect(body.saved[1]?.file).toMatch(/^[0-9a-f-]{36}$/);
    expect(readdirSync(storage).sort()).toEqual(body.saved.map((s) => s.file).sort());
    expect(readFileSync(join(storage, body.saved[1]?.file as string), "utf8")).toBe("second");
  });

  test("too many parts: 413", async () => {
    const form = new FormData();
    for (let i = 0; i < 5; i++) form.append("v", new Blob(["x"]), `${i}.bin`);
    const response = await fetch(`${server.url}/videos`, { method: "POST", body: form });
    expect(response.status).toBe(413);
  });

  test("an upload declaring more than the bytes in flight allow: 503 before its body is read", async () => {
    let answer = "";
    const socket = await Bun.connect({
      hostname: "127.0.0.1",
      port: server.port,
      socket: {
        data(_socket, data) {
          answer += data.toString();
        },
      },
    });
    socket.write(
      "POST /videos HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=b\r\n" +
        `Content-Length: ${5 * 1024 ** 3}\r\n\r\n--b\r\n`,
    );
    const deadline = Date.now() + 5000;
    while (!answer.includes("limit 4096 MiB") && Date.now() < deadline) await Bun.sleep(10);
    socket.terminate();
    expect(answer).toStartWith("HTTP/1.1 503");
    expect(answer.toLowerCase()).toContain("retry-after: 5");
    expect(answer).toContain("this upload does not fit in the bytes of uploads in flight (limit 4096 MiB)");
  });
});
