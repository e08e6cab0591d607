/**
 * A small front end calling a webfw API through `webfw/client` (docs/client.md):
 * `bun examples/typed-client/server.ts`, then open http://127.0.0.1:8080.
 * The page (web/main.ts, plain TypeScript) is bundled for the browser with Bun's
 * bundler (what `bun build --target browser` runs) when the server starts.
 */
import { join } from "node:path";
import { Webfw } from "../../src/index.ts";
import { notesApi } from "./api.ts";

// The client's type: every route handle this module exports (here: all of api.ts).
export * from "./api.ts";

const WEB = join(import.meta.dir, "web");

/** The page's script, bundled once on first request: no server code is in it (only types were imported). */
let bundle: Promise<string> | null = null;
function bundled(): Promise<string> {
  bundle ??= Bun.build({ entrypoints: [join(WEB, "main.ts")], target: "browser", minify: true }).then(
    async (result) => {
      if (!result.success) throw new AggregateError(result.logs, "the front end does not bundle");
      return (result.outputs[0] as Blob).text();
    },
  );
  return bundle;
}

export const app = new Webfw(import.meta.path);
app.includeRouter(notesApi);
app.get("/", () => Bun.file(join(WEB, "index.html")), { includeInSchema: false });
app.get(
  "/main.js",
  async () => ({
    statusCode: 200,
    description: await bundled(),
    headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" },
  }),
  { includeInSchema: false },
);

if (import.meta.main) app.start({ port: 8080 });
export default app;
