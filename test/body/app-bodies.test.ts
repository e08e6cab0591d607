/** The body, form, file, template and streaming pieces as wired into the app pipeline, over HTTP. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { html, serveFile, serveHtml, Webfw } from "../../src/index.ts";
import { sse } from "../../src/stream/sse.ts";
import { MustacheTemplate } from "../../src/templating/index.ts";
import { buildMultipart, MULTIPART_TYPE } from "./multipart-builder.ts";

let dir: string;
let handle: { port: number; stop: () => unknown };
let base: string;
const stopped = { value: false };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "webfw-app-bodies-"));
  writeFileSync(join(dir, "page.html"), "<h1>page</h1>");
  writeFileSync(join(dir, "data.txt"), "0123456789");
  writeFileSync(join(dir, "layout.mustache"), "<title>{{title}}</title>{{> body}}");
  writeFileSync(join(dir, "body.mustache"), "<p>{{text}}</p>");
  const tpl = new MustacheTemplate(dir);

  const app = new Webfw(import.meta.path, { maxBodySize: 64 * 1024, formLimits: { maxParts: 5 } });
  app.post("/form", ({ formData, files }) => ({ formData, files: Object.keys(files) }));
  app.post("/body", ({ body }) => (typeof body === "string" ? { text: body } : { bytes: body.length }));
  app.get("/tpl", ({ queryParams }) =>
    html(tpl.renderTemplate("layout", { title: "T", text: queryParams.get("text", "") })),
  );
  app.get("/file", () => serveFile(join(dir, "data.txt"), { fileName: "données.txt" }));
  app.get("/html", () => serveHtml(join(dir, "page.html")));
  app.get("/gen", async function* () {
    yield "a,";
    yield { b: 1 };
  });
  app.get("/sse", () =>
    sse(
      (async function* () {
        stopped.value = false;
        try {
          for (let i = 0; ; i++) {
            yield { data: `tick ${i}`, id: String(i) };
            await Bun.sleep(10);
          }
        } finally {
          stopped.value = true;
        }
      })(),
    ),
  );
  handle = await app.start({ port: 0, host: "127.0.0.1", argv: [], handleSignals: false });
  base = `http://127.0.0.1:${handle.port}`;
});

afterAll(async () => {
  await handle?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const post = (path: string, body: BodyInit, contentType?: string) =>
  fetch(`${base}${path}`, {
    method: "POST",
    body,
    headers: contentType ? { "content-type": contentType } : {},
  });

describe("forms through the app", () => {
  test("urlencoded → request.formData (last value wins)", async () => {
    const response = await post("/form", "a=1&b=x+y&a=2", "application/x-www-form-urlencoded");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ formData: { a: "2", b: "x y" }, files: [] });
  });

  test("multipart → formData and files", async () => {
    const body = buildMultipart([
      { name: "f", value: "v" },
      { name: "up", value: new Uint8Array([1, 2, 3]), fileName: "x.bin" },
    ]);
    const response = await post("/form", body, MULTIPART_TYPE);
    expect(await response.json()).toEqual({ formData: { f: "v" }, files: ["x.bin"] });
  });

  test("bad percent-encoding is 400 with the message", async () => {
    const response = await post("/form", "a=%zz", "application/x-www-form-urlencoded");
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/invalid percent-encoding/);
  });

  test("truncated multipart and a missing boundary are 400", async () => {
    const body = buildMultipart([{ name: "f", value: "v" }]);
    expect((await post("/form", body.subarray(0, body.length - 10), MULTIPART_TYPE)).status).toBe(400);
    expect((await post("/form", body, "multipart/form-data")).status).toBe(400);
  });

  test("formLimits.maxParts is 413", async () => {
    const response = await post("/form", "a=1&b=2&c=3&d=4&e=5&f=6", "application/x-www-form-urlencoded");
    expect(response.status).toBe(413);
  });

  test("maxBodySize is 413, with Content-Length and chunked", async () => {
    expect((await post("/body", new Uint8Array(64 * 1024 + 1))).status).toBe(413);
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(16 * 1024));
      },
    });
    const chunked = await fetch(`${base}/body`, {
      method: "POST",
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await post("/body", new Uint8Array(64 * 1024))).status).toBe(200);
  });

  test("request.body: text when UTF-8, bytes otherwise", async () => {
    expect(await (await post("/body", "héllo")).json()).toEqual({ text: "héllo" });
    expect(await (await post("/body", new Uint8Array([0xff, 0xfe, 0]))).json()).toEqual({ bytes: 3 });
  });
});

describe("responses through the app", () => {
  test("a template with a partial, escaped, as HTML", async () => {
    const response = await fetch(`${base}/tpl?text=${encodeURIComponent("<b>")}`);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await response.text()).toBe("<title>T</title><p>&lt;b&gt;</p>");
  });

  test("serveFile: disposition, range, 304", async () => {
    const response = await fetch(`${base}/file`);
    expect(response.headers.get("content-disposition")).toBe(
      "attachment; filename=\"donn_es.txt\"; filename*=UTF-8''donn%C3%A9es.txt",
    );
    const partial = await fetch(`${base}/file`, { headers: { range: "bytes=-3" } });
    expect(partial.status).toBe(206);
    expect(await partial.text()).toBe("789");
    const etag = response.headers.get("etag")!;
    expect((await fetch(`${base}/file`, { headers: { "if-none-match": etag } })).status).toBe(304);
  });

  test("serveHtml", async () => {
    const response = await fetch(`${base}/html`);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    // Shown in the browser, never downloaded: no header, or "inline".
    expect(response.headers.get("content-disposition") ?? "inline").toBe("inline");
    expect(await response.text()).toBe("<h1>page</h1>");
  });

  test("an async generator streams", async () => {
    expect(await (await fetch(`${base}/gen`)).text()).toBe('a,{"b":1}\n');
  });

  test("sse: events arrive, a disconnect stops the generator", async () => {
    const controller = new AbortController();
    const response = await fetch(`${base}/sse`, { signal: controller.signal });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = response.body!.getReader();
    let text = "";
    while (!text.includes("tick 2")) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain("id: 0\ndata: tick 0\n\n");
    controller.abort();
    for (let i = 0; i < 300 && !stopped.value; i++) await Bun.sleep(10);
    expect(stopped.value).toBe(true);
  });
});
