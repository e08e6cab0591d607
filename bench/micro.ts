/**
 * In-process cost of webfw's request path per scenario, without sockets:
 * `bun bench/micro.ts`. Calls the function Bun's router would call (webfw's
 * compiled dispatcher, `bun` engine) and the raw Bun handler doing the same
 * work, and prints ns per request (the fastest of 11 rounds: the machine's
 * noise only ever adds time). The socket and HTTP
 * parsing cost (~7 µs a request here) is the same for both and is left out,
 * so these numbers show where webfw's own time goes; wrk (bench/run.ts) shows
 * what it means for throughput.
 */
import { Webfw, Response as WebfwResponse } from "../src/index.ts";
import { HELLO, POWERED_BY } from "./lib/ready.ts";

type RouteFn = (req: Request, server: null) => Response | Promise<Response>;

const ROUNDS = 11;
const N = Number(process.env.MICRO_N ?? "100000");

async function bench(name: string, make: () => Request, fn: (req: Request) => unknown): Promise<number> {
  const requests = Array.from({ length: N }, make);
  const run = async () => {
    const start = Bun.nanoseconds();
    for (let i = 0; i < N; i++) {
      const out = fn(requests[i] as Request);
      if (out instanceof Promise) await out;
    }
    return (Bun.nanoseconds() - start) / N;
  };
  await run(); // warm-up (JIT)
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Fresh requests each round: bodies can be read once.
    for (let i = 0; i < N; i++) requests[i] = make();
    times.push(await run());
  }
  const best = Math.min(...times);
  console.log(`${name.padEnd(34)} ${best.toFixed(0).padStart(6)} ns`);
  return best;
}

async function webfwRoute(setup: (app: Webfw) => void, key: string, method = "GET"): Promise<RouteFn> {
  const app = new Webfw(import.meta.path, { router: "bun", openapi: false });
  setup(app);
  const built = await app.build({});
  const entry = built.bunRoutes[key] as Record<string, unknown>;
  return entry[method] as RouteFn;
}

const withParams = (url: string, params: Record<string, string>) => () =>
  Object.assign(new Request(url), { params }) as Request;
const JSON_BODY = '{"id":42,"name":"bench","tags":["a","b","c"],"nested":{"ok":true,"ratio":0.5}}';
const post = () =>
  new Request("http://127.0.0.1/json", {
    method: "POST",
    body: JSON_BODY,
    headers: { "content-type": "application/json", "content-length": String(JSON_BODY.length) },
  });
const get = () => new Request("http://127.0.0.1/");

const rows: [string, number, number][] = [];
async function pair(name: string, make: () => Request, raw: (req: Request) => unknown, webfw: RouteFn) {
  const a = await bench(`${name}: raw`, make, raw);
  const b = await bench(`${name}: webfw`, make, (req) => webfw(req, null));
  rows.push([name, a, b]);
}

await pair(
  "hello",
  get,
  () => new Response(HELLO),
  await webfwRoute((app) => app.get("/", () => HELLO), "/"),
);
await pair(
  "params",
  withParams("http://127.0.0.1/id/42?name=bun", { id: "42" }),
  (req) => {
    const name = new URL(req.url).searchParams.get("name");
    return new Response(`${(req as Bun.BunRequest).params.id} ${name}`, {
      headers: { "x-powered-by": POWERED_BY },
    });
  },
  await webfwRoute(
    (app) =>
      app.get(
        "/id/:id",
        ({ pathParams, queryParams }) =>
          new WebfwResponse(
            200,
            { "x-powered-by": POWERED_BY },
            `${pathParams.id} ${queryParams.get("name")}`,
          ),
      ),
    "/id/:id",
  ),
);
await pair(
  "json",
  post,
  async (req) => Response.json(await req.json()),
  await webfwRoute((app) => app.post("/json", (request) => request.json()), "/json", "POST"),
);
await pair(
  "middleware",
  get,
  () => {
    const response = new Response(HELLO);
    response.headers.set("x-after", "1");
    return response;
  },
  await webfwRoute((app) => {
    app.beforeRequest(() => {});
    app.afterRequest((response) => {
      response.headers.set("x-after", "1");
    });
    app.get("/", () => HELLO);
  }, "/"),
);

console.log("\nwebfw's own cost per request (webfw − raw):");
for (const [name, raw, webfw] of rows)
  console.log(`  ${name.padEnd(12)} ${(webfw - raw).toFixed(0).padStart(6)} ns`);
process.exit(0);
