/**
 * A preload for bench/idle-rss.ts `--modules`: records every source module the process loads
 * (through a Bun plugin that reads each file itself) and writes the list to
 * `$WEBFW_MODULE_TRACE` when the process exits. Only for listing: it changes memory use.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { plugin } from "bun";

const out = process.env.WEBFW_MODULE_TRACE;
if (out) {
  plugin({
    name: "module-trace",
    setup(build) {
      // Swagger UI's bundle is imported `with { type: "file" }` (a path, never evaluated): left to Bun.
      build.onLoad({ filter: /^(?!.*swagger-ui-dist).*\.(ts|tsx|js|mjs|cjs)$/ }, (args) => {
        appendFileSync(out, `${args.path}\n`);
        const loader = args.path.endsWith(".ts") || args.path.endsWith(".tsx") ? "ts" : "js";
        return { contents: readFileSync(args.path, "utf8"), loader };
      });
    },
  });
}
