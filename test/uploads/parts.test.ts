/**
 * `request.parts()` over real sockets (src/uploads/): multipart read from the socket as it
 * arrives, `saveTo` on disk, every limit with its own 413, malformed bodies 400, and a client
 * that disconnects mid-part leaving no file behind.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import { BOUNDARY, buildMultipart } from "../body/multipart-builder.ts";
import { testWithProgram } from "../helpers/system-program.ts";
import { curl } from "../helpers/tls.ts";

let root: string;
let server: ServerHandle;
/** Per upload id: when the server saw each part (ms since epoch), and how the handler ended. */
const seen = new Map<string, { parts: number[]; outcome?: string }>();

function uploadDir(id: string): string {
  const dir = join(root, id);
  mkdirSync(dir, { recursive: true });
  return dir;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "webfw-uploads-"));
  const app = new Webfw(import.meta.path, { formLimits: { maxParts: 6, maxFieldSize: 1024 } });
  app.post(
    "/upload/:id",
    async (request) => {
      const id = request.pathParams.id as string;
      const record = { parts: [] as number[] } as { parts: number[]; outcome?: string };
      seen.set(id, record);
      const query = request.queryParams;
      const limits: Record<string, number> = {};
      for (const name of ["maxFileSize", "maxTotalSize", "maxParts", "maxFieldSize"]) {
        const value = query.get(name, "");
        if (value !== "") limits[name] = Number(value);
      }
      const out: unknown[] = [];
      try {
        for await (const part of request.parts(limits)) {
          record.parts.push(Date.now());
          if (query.get("skip", "") === "1") {
            out.push({ skipped: part.name });
            continue;
          }
          if (part.fileName === null)
            out.push({ field: part.name, value: await part.text(), type: part.contentType });
          else {
            const size = await part.saveTo(join(uploadDir(id), part.fileName));
            out.push({ file: part.fileName, field: part.name, size, type: part.contentType });
          }
        }
        record.outcome = "ok";
      } catch (error) {
        record.outcome = `error: ${(error as Error).message}`;
        throw error;
      }
      return out;
    },
    { body: "stream" },
  );
  app.post("/buffered", async (request) => {
    for await (const part of request.parts()) return part.name;
    return "none";
  });
  server = await app.start({ port: 0 });
});

afterAll(async () => {
  await server?.stop();
  rmSync(root, { recursive: true, force: true });
});

const multipartHeaders = { "content-type": `multipart/form-data; boundary=${BOUNDARY}` };

async function post(
  id: string,
  body: BodyInit,
  query = "",
  headers: Record<string, string> = multipartHeaders,
) {
  const response = await fetch(`${server.url}/upload/${id}${query}`, { method: "POST", body, headers });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/** Files left in an upload's directory (the saved ones, and any temporary file). */
function leftIn(id: string): string[] {
  try {
    return readdirSync(join(root, id)).sort();
  } catch {
    return [];
  }
}

describe("parts as they arrive", () => {
  test("fields and files from a browser-style FormData: saved files equal what was sent", async () => {
    const form = new FormData();
    form.append("title", "holiday ✓");
    const photo = crypto.getRandomValues(new Uint8Array(300_000));
    form.append("photo", new Blob([photo], { type: "image/jpeg" }), "beach.jpg");
    form.append("notes", new Blob(["a\r\n--not a boundary\r\nb"], { type: "text/plain" }), "notes.txt");
    const response = await fetch(`${server.url}/upload/form`, { method: "POST", body: form });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([
      { field: "title", value: "holiday ✓", type: "text/plain" },
      { file: "beach.jpg", field: "photo", size: 300_000, type: "image/jpeg" },
      { file: "notes.txt", field: "notes", size: 22, type: "text/plain;charset=utf-8" },
    ]);
    expect(new Uint8Array(readFileSync(join(root, "form", "beach.jpg")))).toEqual(photo);
    expect(readFileSync(join(root, "form", "notes.txt"), "utf8")).toBe("a\r\n--not a boundary\r\nb");
    expect(leftIn("form")).toEqual(["beach.jpg", "notes.txt"]);
  });

  test("the handler gets a part before the client has sent the next one", async () => {
    const first = buildMultipart([{ name: "a", value: "first" }]);
    // buildMultipart closes the body; keep the part, drop the closing delimiter.
    const head = first.subarray(0, first.length - `--${BOUNDARY}--\r\n`.length);
    const rest = buildMultipart([{ name: "b", value: "second" }]);
    let sentRestAt = 0;
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(head);
        await Bun.sleep(600);
        sentRestAt = Date.now();
        controller.enqueue(rest);
        controller.close();
      },
    });
    const result = await post("slow", body);
    expect(result.status).toBe(200);
    expect(JSON.parse(result.text).map((p: { value: string }) => p.value)).toEqual(["first", "second"]);
    const record = seen.get("slow") as { parts: number[] };
    expect(record.parts[0]).toBeLessThan(sentRestAt);
  });

  test("a 64 MiB file, far over maxBodySize (10 MiB), streamed to disk", async () => {
    const size = 64 * 1024 * 1024;
    const hash = createHash("sha256");
    const encoder = new TextEncoder();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(
          encoder.encode(
            `--${BOUNDARY}\r\nContent-Disposition: form-data; name="big"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
          ),
        );
      },
      pull(controller) {
        if (sent >= size) {
          controller.enqueue(encoder.encode(`\r\n--${BOUNDARY}--\r\n`));
          controller.close();
          return;
        }
        const chunk = new Uint8Array(1024 * 1024);
        for (let i = 0; i < chunk.length; i += 4096) chunk[i] = (sent + i) & 0xff;
        hash.update(chunk);
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const result = await post("big", body);
    expect(result.status).toBe(200);
    expect(JSON.parse(result.text)).toEqual([
      { file: "big.bin", field: "big", size, type: "application/octet-stream" },
    ]);
    const saved = createHash("sha256")
      .update(readFileSync(join(root, "big", "big.bin")))
      .digest("hex");
    expect(saved).toBe(hash.digest("hex"));
  }, 60_000);

  test("parts the handler does not read are skipped; preamble, epilogue, padding and empty file inputs are fine", async () => {
    const body =
      `preamble to ignore\r\n--${BOUNDARY}  \r\nContent-Disposition: form-data; name="one"\r\n\r\n1` +
      `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="empty"; filename=""\r\nContent-Type: application/octet-stream\r\n\r\n` +
      `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="two"\r\n\r\n2\r\n--${BOUNDARY}--\r\nepilogue`;
    const read = await post("shapes", body);
    expect(read.status).toBe(200);
    expect(JSON.parse(read.text)).toEqual([
      { field: "one", value: "1", type: "text/plain" },
      { field: "two", value: "2", type: "text/plain" },
    ]);
    const skipped = await post("skips", body, "?skip=1");
    expect(JSON.parse(skipped.text)).toEqual([{ skipped: "one" }, { skipped: "two" }]);
  });

  testWithProgram("curl", "apt-get install curl", "curl -F uploads a file and fields", async () => {
    const file = join(root, "from-curl.txt");
    writeFileSync(file, "sent by curl\n".repeat(1000));
    const result = await curl(`${server.url}/upload/curl`, [
      "-F",
      "who=curl",
      "-F",
      `doc=@${file};type=text/plain`,
    ]);
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body)).toEqual([
      { field: "who", value: "curl", type: "text/plain" },
      { file: "from-curl.txt", field: "doc", size: 13_000, type: "text/plain" },
    ]);
    expect(readFileSync(join(root, "curl", "from-curl.txt"), "utf8")).toBe("sent by curl\n".repeat(1000));
  });
});

describe("limits: each its own 413, and nothing left on disk", () => {
  test("a file over maxFileSize", async () => {
    const body = buildMultipart([{ name: "f", value: new Uint8Array(5000), fileName: "big.bin" }]);
    const result = await post("file-limit", body, "?maxFileSize=4096");
    expect(result.status).toBe(413);
    expect(result.text).toContain('Uploaded file "big.bin" too large (limit 4096 bytes)');
    expect(leftIn("file-limit")).toEqual([]);
  });

  test("more parts than maxParts (the app's formLimits, or the handler's)", async () => {
    const parts = Array.from({ length: 7 }, (_, i) => ({ name: `p${i}`, value: "x" }));
    const result = await post("count", buildMultipart(parts));
    expect(result.status).toBe(413);
    expect(result.text).toContain("Too many multipart parts (limit 6)");
    const lower = await post("count2", buildMultipart(parts.slice(0, 3)), "?maxParts=2");
    expect(lower.status).toBe(413);
    expect(lower.text).toContain("Too many multipart parts (limit 2)");
  });

  test("a text field over maxFieldSize, a field name too", async () => {
    const result = await post("field", buildMultipart([{ name: "essay", value: "x".repeat(1025) }]));
    expect(result.status).toBe(413);
    expect(result.text).toContain('Form field "essay" too large (limit 1024 bytes)');
    const name = await post("field-name", buildMultipart([{ name: "n".repeat(1025), value: "x" }]));
    expect(name.status).toBe(413);
    expect(name.text).toContain("Form field name too large");
  });

  test("a body over maxTotalSize, even spread over small files", async () => {
    const parts = [1, 2, 3].map((i) => ({
      name: `f${i}`,
      value: new Uint8Array(3000),
      fileName: `f${i}.bin`,
    }));
    const result = await post("total", buildMultipart(parts), "?maxTotalSize=5000");
    expect(result.status).toBe(413);
    expect(result.text).toContain("Upload too large (limit 5000 bytes in total)");
    // f1 was complete before the limit was passed; the part being written when it was is gone.
    expect(leftIn("total").filter((name) => name.endsWith(".part"))).toEqual([]);
    expect(leftIn("total")).not.toContain("f2.bin");
  });

  test("part headers over 16 KiB", async () => {
    const body = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\nX-Long: ${"h".repeat(17_000)}\r\n\r\nv\r\n--${BOUNDARY}--\r\n`;
    const result = await post("headers", body);
    expect(result.status).toBe(413);
    expect(result.text).toContain("Multipart part headers too large");
  });
});

describe("malformed bodies: 400 (415 for another type), as the whole-body parser says", () => {
  const cases: [string, string, Record<string, string>, number, string][] = [
    ["no boundary", "x", { "content-type": "multipart/form-data" }, 400, "no boundary parameter"],
    [
      "a bad boundary",
      "x",
      { "content-type": `multipart/form-data; boundary=${"b".repeat(71)}` },
      400,
      "invalid boundary",
    ],
    ["not multipart", '{"a":1}', { "content-type": "application/json" }, 415, "send multipart/form-data"],
    ["no content type", "x", {}, 415, "send multipart/form-data"],
    ["boundary never occurs", "just text", multipartHeaders, 400, "does not occur in the body"],
    [
      "missing final boundary",
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue`,
      multipartHeaders,
      400,
      "truncated body",
    ],
    [
      "truncated headers",
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"`,
      multipartHeaders,
      400,
      "truncated part headers",
    ],
    [
      "no Content-Disposition",
      `--${BOUNDARY}\r\nContent-Type: text/plain\r\n\r\nv\r\n--${BOUNDARY}--`,
      multipartHeaders,
      400,
      "has no Content-Disposition",
    ],
    [
      "not form-data",
      `--${BOUNDARY}\r\nContent-Disposition: attachment; name="a"\r\n\r\nv\r\n--${BOUNDARY}--`,
      multipartHeaders,
      400,
      "is not form-data",
    ],
    [
      "a part without a name",
      `--${BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\nv\r\n--${BOUNDARY}--`,
      multipartHeaders,
      400,
      "has no name",
    ],
    [
      "a file named ..",
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"; filename=".."\r\n\r\nv\r\n--${BOUNDARY}--`,
      multipartHeaders,
      400,
      "invalid file name",
    ],
    [
      "a file without a name but with content",
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"; filename=""\r\n\r\nv\r\n--${BOUNDARY}--`,
      multipartHeaders,
      400,
      "a file without a file name",
    ],
    [
      "LF-only lines",
      `--${BOUNDARY}\nContent-Disposition: form-data; name="a"\n\nv\n--${BOUNDARY}--\n`,
      multipartHeaders,
      400,
      "boundary line not followed by CRLF",
    ],
    [
      "a malformed header line",
      `--${BOUNDARY}\r\nno colon here\r\n\r\nv\r\n--${BOUNDARY}--`,
      multipartHeaders,
      400,
      "malformed header line",
    ],
    ["an empty body", "", multipartHeaders, 400, ""],
  ];
  for (const [name, body, headers, status, message] of cases) {
    test(name, async () => {
      const result = await post(`bad-${name.replaceAll(" ", "-").replaceAll(".", "")}`, body, "", headers);
      expect(result.status).toBe(status);
      expect(result.text).toContain(message);
    });
  }

  test("request.parts() on a route whose body the pipeline already read is a programming error (500)", async () => {
    const response = await fetch(`${server.url}/buffered`, {
      method: "POST",
      body: buildMultipart([{ name: "a", value: "b" }]),
      headers: multipartHeaders,
    });
    expect(response.status).toBe(500);
  });
});

describe("a client that disconnects mid-part", () => {
  test("leaves no file behind, neither the target nor a temporary one", async () => {
    const id = "gone";
    const socket = await Bun.connect({ hostname: "127.0.0.1", port: server.port, socket: { data() {} } });
    const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"; filename="half.bin"\r\n\r\n`;
    socket.write(
      `POST /upload/${id} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\n` +
        `Content-Length: 10000000\r\n\r\n${head}${"x".repeat(200_000)}`,
    );
    // Wait until the server is writing the file, then go away.
    const deadline = Date.now() + 5000;
    while (leftIn(id).length === 0 && Date.now() < deadline) await Bun.sleep(10);
    expect(leftIn(id).some((name) => name.endsWith(".part"))).toBe(true);
    socket.end();
    while (seen.get(id)?.outcome === undefined && Date.now() < deadline + 5000) await Bun.sleep(10);
    expect(seen.get(id)?.outcome).toContain("Upload aborted");
    expect(leftIn(id)).toEqual([]);
  });
});

describe("route options", () => {
  test('body: "stream" cannot be offloaded; OpenAPI says multipart or any bytes', async () => {
    const offloaded = new Webfw(import.meta.path);
    offloaded.post("/u", () => "x", { body: "stream", offload: true });
    await expect(offloaded.build()).rejects.toThrow('body: "stream" cannot be offloaded');
    const documented = new Webfw(import.meta.path);
    documented.post("/u", () => "x", { body: "stream" });
    const spec = (await (await documented.request("/openapi.json")).json()) as {
      paths: Record<string, { post: { requestBody: { content: Record<string, unknown> } } }>;
    };
    expect(Object.keys(spec.paths["/u"]?.post.requestBody.content ?? {})).toEqual([
      "multipart/form-data",
      "*/*",
    ]);
  });
});
