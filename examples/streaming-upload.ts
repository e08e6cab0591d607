/**
 * Large uploads streamed to disk as they arrive (docs/uploads.md): memory stays flat whatever
 * the size, a client that goes away leaves no half-written file.
 *
 *   bun examples/streaming-upload.ts --port 8080
 *   curl -F title=holiday -F video=@big.mp4 http://127.0.0.1:8080/videos
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { appDir, Webfw } from "../src/index.ts";

// Bounds across uploads (docs/uploads.md#bounds): 16 at once, 4 GiB of them in flight; past either,
// 503 with Retry-After before a byte of the body is read.
const app = new Webfw(import.meta.path, { uploads: { maxInFlight: 16, maxBytesInFlight: 4 * 1024 ** 3 } });
// appDir: next to the executable in a binary made by `webfw build` (docs/deployment.md, "Binaries").
const storage = process.env.UPLOAD_DIR ?? join(appDir(import.meta.dir), "uploads");
mkdirSync(storage, { recursive: true });

app.post(
  "/videos",
  async (request) => {
    const saved: { field: string; file: string; bytes: number }[] = [];
    let title = "";
    // Limits for this route: 2 GiB per file, 3 files and a title at most.
    for await (const part of request.parts({ maxFileSize: 2 * 1024 ** 3, maxParts: 4 })) {
      if (part.fileName === null) {
        if (part.name === "title") title = await part.text();
        continue; // other fields are skipped (still counted against the limits)
      }
      // Never trust the client's name for the path: keep only a safe, generated one.
      const file = `${crypto.randomUUID()}${extension(part.fileName)}`;
      saved.push({ field: part.name, file, bytes: await part.saveTo(join(storage, file)) });
    }
    return [{ title, saved }, 201];
  },
  { body: "stream", summary: "Upload videos (multipart, streamed to disk)" },
);

function extension(name: string): string {
  const match = /\.[A-Za-z0-9]{1,8}$/.exec(name);
  return match ? match[0].toLowerCase() : "";
}

export default app;

if (import.meta.main) {
  await app.start(); // logs `listening on <url>` (docs/cli.md, "The startup line")
}
