import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUploadApp } from "../../examples/upload/app.ts";
import { randomBytes } from "../body/multipart-builder.ts";

let uploadDir: string;
let handle: { port: number; stop: () => unknown };
let base: string;

beforeAll(async () => {
  uploadDir = mkdtempSync(join(tmpdir(), "webfw-upload-test-"));
  const app = createUploadApp(uploadDir);
  handle = await app.start({ port: 0, host: "127.0.0.1", argv: [], handleSignals: false });
  base = `http://127.0.0.1:${handle.port}`;
});

afterAll(async () => {
  await handle?.stop();
  rmSync(uploadDir, { recursive: true, force: true });
});

describe("examples/upload", () => {
  test("the form page is rendered from the templates", async () => {
    const response = await fetch(`${base}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const page = await response.text();
    expect(page).toContain("<title>Uploads</title>");
    expect(page).toContain('enctype="multipart/form-data"');
    expect(page).toContain("No files yet.");
  });

  test("a multipart upload of a 5 MB binary file and a text field, then the listing and the download", async () => {
    const data = randomBytes(5 * 1024 * 1024, 99);
    const form = new FormData();
    form.append("description", "<b>holiday</b>");
    form.append("files", new File([data], "photo.bin", { type: "application/octet-stream" }));
    form.append("files", new File(["hello"], "note.txt", { type: "text/plain" }));
    const upload = await fetch(`${base}/upload`, { method: "POST", body: form, redirect: "manual" });
    expect(upload.status).toBe(303);
    expect(upload.headers.get("location")).toBe(`/?uploaded=${encodeURIComponent("photo.bin, note.txt")}`);
    expect(Buffer.compare(readFileSync(join(uploadDir, "photo.bin")), Buffer.from(data))).toBe(0);

    const page = await (await fetch(`${base}${upload.headers.get("location")}`)).text();
    expect(page).toContain("Uploaded: photo.bin, note.txt");
    expect(page).toContain("&lt;b&gt;holiday&lt;&#x2F;b&gt;");
    expect(page).toContain(">photo.bin</a>");

    const download = await fetch(`${base}/files/photo.bin`);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-disposition")).toBe('attachment; filename="photo.bin"');
    const body = new Uint8Array(await download.arrayBuffer());
    expect(Buffer.compare(Buffer.from(body), Buffer.from(data))).toBe(0);

    const range = await fetch(`${base}/files/photo.bin`, { headers: { range: "bytes=-100" } });
    expect(range.status).toBe(206);
    expect(Buffer.from(await range.arrayBuffer()).equals(Buffer.from(data.subarray(data.length - 100)))).toBe(
      true,
    );

    const etag = download.headers.get("etag")!;
    expect((await fetch(`${base}/files/photo.bin`, { headers: { "if-none-match": etag } })).status).toBe(304);

    const list = (await (await fetch(`${base}/api/files`)).json()) as { name: string; size: number }[];
    expect(list.map((f) => [f.name, f.size])).toEqual([
      ["note.txt", 5],
      ["photo.bin", data.length],
    ]);
  });

  test("a raw upload stores the body as is", async () => {
    const data = new Uint8Array([0, 255, 1, 254, 13, 10]);
    const response = await fetch(`${base}/upload/raw.bin`, { method: "PUT", body: data });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ stored: "raw.bin", size: 6 });
    expect(new Uint8Array(readFileSync(join(uploadDir, "raw.bin")))).toEqual(data);
  });

  test("bad uploads are 400, missing files 404", async () => {
    const empty = await fetch(`${base}/upload`, { method: "POST", body: new FormData() });
    expect(empty.status).toBe(400);
    const malformed = await fetch(`${base}/upload`, {
      method: "POST",
      body: '--x\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\ntruncated',
      headers: { "content-type": "multipart/form-data; boundary=x" },
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.text()).toMatch(/Malformed multipart body/);
    const noBoundary = await fetch(`${base}/upload`, {
      method: "POST",
      body: "x",
      headers: { "content-type": "multipart/form-data" },
    });
    expect(noBoundary.status).toBe(400);
    expect((await fetch(`${base}/files/nope.txt`)).status).toBe(404);
    expect((await fetch(`${base}/files/.hidden`)).status).toBe(400);
    expect((await fetch(`${base}/files/..%2Fapp.ts`)).status).not.toBe(200);
  });

  test("a body over maxBodySize (10 MiB by default) is 413", async () => {
    const form = new FormData();
    form.append("files", new File([new Uint8Array(10 * 1024 * 1024 + 1)], "huge.bin"));
    const response = await fetch(`${base}/upload`, { method: "POST", body: form });
    expect(response.status).toBe(413);
    expect(readFileSync(join(uploadDir, "note.txt"), "utf8")).toBe("hello");
    expect(() => readFileSync(join(uploadDir, "huge.bin"))).toThrow();
  });

  test("the static directory: index file, assets, and no traversal", async () => {
    const index = await fetch(`${base}/static/`);
    expect(index.status).toBe(200);
    expect(await index.text()).toContain("serveDirectory");
    const css = await fetch(`${base}/static/style.css`);
    expect(css.headers.get("content-type")).toMatch(/^text\/css/);
    expect((await fetch(`${base}/static/nope.css`)).status).toBe(404);
    expect((await fetch(`${base}/static/%2e%2e/app.ts`)).status).toBe(404);
  });
});
