/**
 * Uploads: a form page rendered from Mustache templates, a multipart upload
 * handler, a raw-body upload, downloads with `serveFile`, and static assets
 * with `serveDirectory`.
 *
 *   bun examples/upload/app.ts            # http://127.0.0.1:8080, files in $TMPDIR/webfw-upload-example
 *   UPLOAD_DIR=./uploads PORT=3000 bun examples/upload/app.ts
 */
import { mkdirSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpError, html, Response, serveFile, Webfw } from "../../src/index.ts";
import { MustacheTemplate } from "../../src/templating/index.ts";

/** A stored file name: the last path segment, no dot files, no control characters. */
function safeName(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? "";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (base === "" || base.startsWith(".") || /[\u0000-\u001f\u007f]/.test(base) || base.length > 200) {
    throw new HttpError(400, `Invalid file name: ${JSON.stringify(name)}`);
  }
  return base;
}

export function createUploadApp(uploadDir: string): Webfw {
  mkdirSync(uploadDir, { recursive: true });
  const app = new Webfw(import.meta.path);
  const tpl = new MustacheTemplate(join(import.meta.dir, "templates"));
  const descriptions = new Map<string, string>();

  const listFiles = () =>
    readdirSync(uploadDir)
      .filter((name) => !name.startsWith("."))
      .sort()
      .map((name) => ({
        name,
        size: statSync(join(uploadDir, name)).size,
        url: `/files/${encodeURIComponent(name)}`,
        description: descriptions.get(name) ?? "",
      }));

  app.get("/", ({ queryParams }) => {
    const files = listFiles();
    const uploaded = queryParams.get("uploaded", "");
    return html(
      tpl.renderTemplate("index", {
        title: "Uploads",
        files,
        count: files.length,
        message: uploaded ? `Uploaded: ${uploaded}` : "",
      }),
    );
  });

  // Multipart: request.files is keyed by file name, request.formData holds the text fields.
  app.post("/upload", async ({ files, formData }) => {
    const names: string[] = [];
    for (const [name, data] of Object.entries(files)) {
      const stored = safeName(name);
      await Bun.write(join(uploadDir, stored), data);
      descriptions.set(stored, formData.description ?? "");
      names.push(stored);
    }
    if (names.length === 0) throw new HttpError(400, "No file in the upload");
    // Post/Redirect/Get: reloading the page does not upload again.
    return new Response(303, { location: `/?uploaded=${encodeURIComponent(names.join(", "))}` });
  });

  // Raw upload: the body itself is the file (`curl --data-binary @photo.jpg …/upload/photo.jpg`).
  app.put("/upload/:name", async ({ pathParams, body }) => {
    const stored = safeName(pathParams.name);
    await Bun.write(join(uploadDir, stored), body);
    return [{ stored, size: typeof body === "string" ? Buffer.byteLength(body) : body.length }, 201];
  });

  app.get("/api/files", () => listFiles());

  // Downloads: Content-Disposition, ETag/304 and Range come from serveFile.
  app.get("/files/:name", ({ pathParams }) => {
    const stored = safeName(pathParams.name);
    return serveFile(join(uploadDir, stored), { fileName: stored });
  });

  app.serveDirectory({
    route: "/static",
    directoryPath: join(import.meta.dir, "static"),
    indexFile: "index.html",
  });
  return app;
}

const app = createUploadApp(process.env.UPLOAD_DIR ?? join(tmpdir(), "webfw-upload-example"));

if (import.meta.main) {
  const server = await app.start({ port: Number(process.env.PORT ?? 8080) });
  console.log(`upload example on ${server.url}`);
}

export default app;
