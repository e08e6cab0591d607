/**
 * Runs route tables through every engine the same way the framework does:
 * `js` and `ffi` get the URL parser's raw pathname after `normalisePath`;
 * `bun` gets a real `Bun.serve` whose `routes` come from `bunRouteTable`, and
 * each handler reports its pattern and the raw params read back by `rawParams`.
 */
import { connect } from "node:net";
import { bunRouteTable, rawParams } from "../../src/match/bun-routes.ts";
import { FfiMatcher } from "../../src/match/ffi.ts";
import { JsMatcher } from "../../src/match/js.ts";
import { normalisePath } from "../../src/match/pattern.ts";
import type { PathMatch, PathMatcher } from "../../src/match/types.ts";

export interface EngineRunner {
  name: string;
  run(routes: string[], paths: string[]): Promise<Array<PathMatch | null>>;
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

export const bunEngine: EngineRunner = {
  name: "bun",
  async run(routes, paths) {
    const table = bunRouteTable(routes);
    // Method objects, as the framework registers them: Bun builds a table of
    // bare "any method" handlers far more slowly (seconds for a few thousand).
    const handlers: Record<string, { GET: (req: Request) => Response }> = {};
    for (const [key, pattern] of table) {
      handlers[key] = {
        GET: (req) => Response.json({ pattern, params: rawParams(pattern, new URL(req.url).pathname) }),
      };
    }
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      routes: handlers,
      fetch: () => new Response("Not Found", { status: 404 }),
    });
    try {
      const out: Array<PathMatch | null> = [];
      for (const p of paths) {
        const res = await rawGet(server.port!, rawPathname(p));
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
