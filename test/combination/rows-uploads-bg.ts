/**
 * Combination rows of the upload bounds (docs/uploads.md#bounds): a streamed upload behind every
 * layer (CORS, auth, …) in every run mode, and the 503 of the byte budget for a declared length
 * that does not fit (the suite's app sets `uploads.maxBytesInFlight` to 1 MiB), refused before
 * the body is read and still carrying the layers' headers. The background rows of table.ts run
 * under the app's `background` bounds.
 */
import { expect } from "bun:test";
import { type Feature, featurePath, httpExchange } from "./table.ts";

export const UPLOAD_BOUNDS_BYTES = 1024 * 1024;

function form(bytes: number): FormData {
  const body = new FormData();
  body.append("file", new Blob([new Uint8Array(bytes).fill(5)]), "data.bin");
  return body;
}

export const UPLOADS_BG_ROWS: Feature[] = [
  {
    name: "upload-bounds",
    register(app, ctx) {
      app.post(
        featurePath("upload-bounds"),
        async (request) => {
          await ctx.guard(request);
          let size = 0;
          for await (const part of request.parts()) size += (await part.bytes()).byteLength;
          return { size, user: (request.identity?.claims.user as string | undefined) ?? "anonymous" };
        },
        { ...ctx.routeOptions, offload: false, body: "stream" },
      );
    },
    async exchange(base, init) {
      const path = featurePath("upload-bounds");
      const first = await httpExchange(base, path, init, { method: "POST", body: form(10_000) });
      const over = await httpExchange(base, path, init, {
        method: "POST",
        body: form(UPLOAD_BOUNDS_BYTES + 100_000),
      }).catch((error: unknown) => ({ status: -1, headers: new Headers(), body: String(error) }));
      first.headers.set("x-over-status", String(over.status));
      first.headers.set("x-over-retry-after", over.headers.get("retry-after") ?? "");
      first.headers.set("x-over-acao", over.headers.get("access-control-allow-origin") ?? "");
      return first;
    },
    verify(result) {
      expect(result.status).toBe(200);
      expect(JSON.parse(result.body)).toEqual({ size: 10_000, user: "ada" });
      // Refused before reading, through the same pipeline: its CORS header matches the first's.
      expect(result.headers.get("x-over-status")).toBe("503");
      expect(result.headers.get("x-over-retry-after")).toBe("5");
      expect(result.headers.get("x-over-acao")).toBe(result.headers.get("access-control-allow-origin") ?? "");
    },
  },
];
