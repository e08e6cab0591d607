/**
 * Runs route tables through every engine the same way the framework does:
 * `js` and `ffi` get the URL parser's raw pathname after `normalisePath`;
 * `bun` gets a real `Bun.serve` whose `routes` come from `bunRouteTable`, and
 * each handler reports its pattern and the raw params read back by `rawParams`.
 */
import { connect } from "node:net";
import { matchPath, requestPath } from "../../src/http/request-target.ts";
import { bunRouteTable, nativeParamReader, rawParams } from "../../src/match/bun-routes.ts";
import { FfiMatcher } from "../../src/match/ffi.ts";
import { JsMatcher } from "../../src/match/js.ts";
import { normalisePath } from "../../src/match/pattern.ts";
import type { PathMatch, PathMatcher } from "../../src/match/types.ts";

export interface EngineRunner {
  name: string;
  /** `raw`: the paths are request targets sent byte for byte (dot segments and all), see table.ts. */
  run(routes: string[], paths: string[], raw?: boolean): Promise<Array<PathMatch | null>>;
}

/** What the server sees for a path written in a test: the URL parser's raw pathname. */
export function rawPathname(path: string): string {
  // Concatenate rather than resolve: "//x" must stay a path, not become a host.
  return new URL(`http://127.0.0.1${path}`).pathname;
}

function inProcess(name: string, make: () => PathMatcher): EngineRunner {
  return {
    name,
    async run(routes, paths) {
      const matcher = make();
      try {
        for (const r of routes) matcher.add(r);
        return paths.map((p) => matcher.match(normalisePath(rawPathname(p))));
      } finally {
        matcher.close?.();
      }
    },
  };
}

export const jsEngine = inProcess("js", () => new JsMatcher());
export const ffiDlopenEngine = inProcess("ffi (dlopen)", () => new FfiMatcher({ loader: "dlopen" }));
export const ffiTinyccEngine = inProcess("ffi (tinycc)", () => new FfiMatcher({ loader: "tinycc" }));

/**
 * A minimal HTTP/1.1 GET that sends the path byte for byte. `fetch` would not
 * do: Bun's client rewrites `//a` to `/a` before sending.
 */
export function rawGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    });
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const split = text.indexOf("\r\n\r\n");
      const status = Number(text.slice(9, 12));
      if (split < 0 || !Number.isInteger(status)) reject(new Error(`bad response for ${path}`));
      else resolve({ status, body: text.slice(split + 4) });
    });
  });
}

/**
 * Bun's native router, with the framework's checks around it (src/plan/build.ts):
 * for `raw` targets, a native match the resolved path does not confirm
 * (`nativeParamReader`) and every request Bun's router leaves unmatched go to
 * the `js` trie with the resolved path, as `Runtime.handle` does. For other
 * groups the fallback is a plain 404, so Bun's own matching is what is tested.
 */
export const bunEngine: EngineRunner = {
  name: "bun",
  async run(routes, paths, raw = false) {
    const table = bunRouteTable(routes);
    const trie = new JsMatcher();
    for (const r of routes) trie.add(r);
    const patternFor = (path: string) => trie.match(path)?.pattern ?? null;
    const generic = (req: Request) => {
      if (!raw) return new Response("Not Found", { status: 404 });
      const found = trie.match(matchPath(req.url));
      return found ? Response.json(found) : new Response("Not Found", { status: 404 });
    };
    // Method objects, as the framework registers them: Bun builds a table of
    // bare "any method" handlers far more slowly (seconds for a few thousand).
    const handlers: Record<string, { GET: (req: Bun.BunRequest) => Response }> = {};
    for (const [key, pattern] of table) {
      const read = nativeParamReader(pattern, patternFor);
      handlers[key] = {
        GET: (req) => {
          if (raw && read(req.url, req.params as Record<string, string>) === null) return generic(req);
          return Response.json({ pattern, params: rawParams(pattern, requestPath(req.url)) });
        },
      };
    }
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      routes: handlers,
      fetch: generic,
    });
    try {
      const out: Array<PathMatch | null> = [];
      for (const p of paths) {
        const res = await rawGet(server.port!, raw ? p : rawPathname(p));
        if (res.status === 404) out.push(null);
        else if (res.status === 200) out.push(JSON.parse(res.body) as PathMatch);
        else throw new Error(`bun engine: unexpected status ${res.status} for ${p}`);
      }
      return out;
    } finally {
      server.stop(true);
    }
  },
};

export const allEngines: EngineRunner[] = [jsEngine, ffiDlopenEngine, ffiTinyccEngine, bunEngine];
