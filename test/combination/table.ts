/**
 * THE COMBINATION TABLE: every feature route × every cross-cutting layer × every run mode.
 *
 * The app in ./app.ts registers every FEATURE row below and installs every LAYER at once;
 * combination.test.ts starts that app once per run mode (inline, `--workers 2`,
 * `--processes 2`, `--dev`, compiled binary, https + HTTP/2, two machines sharing a Redis behind
 * a non-sticky balancer) and runs one test per (feature, layer) cell against it.
 *
 * ## Adding a feature (one row)
 * Append an object to `FEATURES`:
 *   - `name`: a short slug; the route lives at `/f/<name>` (see `featurePath`).
 *   - `register(app, ctx)`: registers the route on the app. Call `ctx.guard(request)` first
 *     in the handler (it applies the `?fail=1` and `?slow=1` switches the exception and
 *     timeout layers use) and pass `ctx.routeOptions` (auth required, offload, timeout).
 *   - `exchange(base, init)`: one HTTP exchange with the route (use `httpExchange` for plain
 *     HTTP); returns status, headers and body text.
 *   - `verify(result)`: asserts the feature's own answer (status and body).
 *   - `skip`: layers that cannot apply to this feature, each with the reason (printed).
 * Nothing else changes: every layer and run mode picks the row up.
 *
 * ## Adding a layer (one column)
 * Append to `LAYERS`: `install(app)` (called once by app.ts, before the features), and
 * `check(feature, call)` which drives the feature through `call(...)` and asserts the layer's
 * effect. Features that cannot take it list the layer in their `skip`.
 */
import { expect } from "bun:test";
import { existsSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AuthenticationHandler,
  BearerGetter,
  HttpError,
  Identity,
  type Request,
  type RouteOptions,
  SubRouter,
  serveFile,
  sse,
  t,
  type Webfw,
  Response as WebfwResponse,
} from "webfw";
import { client } from "webfw/client";
import { RedisStore } from "webfw/rate-limit";
import { MustacheTemplate } from "webfw/templating";
import { isCompressibleType } from "../../src/compression/eligible.ts";
import type { OtlpReceiver } from "../helpers/otlp-receiver.ts";
import { initializeMessage } from "../mcp/helpers/raw-session.ts";
import { CACHE_ROWS } from "./rows-cache.ts";
import { CLIENT_ADDRESS_ROWS } from "./rows-client-address.ts";
import { CONTRACTS_ROWS } from "./rows-contracts.ts";
import { DASHBOARD_ROWS } from "./rows-dashboard.ts";
import { DX_ROWS } from "./rows-dx.ts";
import { JOBS_ROWS } from "./rows-jobs.ts";
import { ROWS as JWT_AUTH_ROWS } from "./rows-jwt-auth.ts";
import { MCP_APPS_ROWS } from "./rows-mcp-apps.ts";
import { MCP_HARDENING_ROWS } from "./rows-mcp-hardening.ts";
import { RATE_LIMIT_ROWS } from "./rows-rate-limit.ts";
import { SECURE_HTTP_ROWS } from "./rows-secure-http.ts";
import { typesRows } from "./rows-types.ts";
import { UPLOADS_BG_ROWS } from "./rows-uploads-bg.ts";

export const TOKEN = "combo-token";
/** A second user's token (`grace`): a caller other than the suite's own (`ada`). */
export const OTHER_TOKEN = "combo-token-other";
export const ORIGIN = "https://combo.example";
export const SESSION_KEY = "combination-suite-session-key-0123456789";
/**
 * A route's time limit in the timeout layer; slow handlers take far longer. Every cell runs under
 * it, so it leaves room for a loaded machine (a Worker being replaced after the timeout cell).
 */
export const ROUTE_TIMEOUT_MS = 1_000;
const SLOW_MS = 5_000;

export interface Exchange {
  status: number;
  headers: globalThis.Headers;
  body: string;
  /** Milliseconds from the response head to the first body chunk, and to the end of the body. */
  firstChunkMs?: number;
  endMs?: number;
}

/** The pause streamed features take between their first and second chunk. */
const STREAM_GAP_MS = 150;

/**
 * Thrown when a streamed body's chunks arrived together. A layer that buffers the stream makes
 * this happen every time; a client held back on a loaded machine only now and then, so the
 * suite runs such a cell once more (combination.test.ts) before it fails.
 */
export class StreamTimingError extends Error {}

/** A streamed body arrived in pieces: its first chunk well before its end (not buffered anywhere). */
function expectStreamed(result: Exchange): void {
  const gap = (result.endMs ?? 0) - (result.firstChunkMs ?? 0);
  if (!(gap > STREAM_GAP_MS / 2)) {
    throw new StreamTimingError(
      `streamed body arrived in one piece: ${gap.toFixed(1)} ms between first chunk and end (expected > ${STREAM_GAP_MS / 2})`,
    );
  }
}

/** An exchange and the milliseconds it took, from the request to the end of the body. */
export interface TimedExchange extends Exchange {
  elapsedMs: number;
}

export interface CallInit {
  headers?: Record<string, string>;
  /** Extra query string, e.g. `fail=1`. */
  query?: string;
}

/** What a feature's handler uses from the suite. */
export interface FeatureContext {
  /** `?fail=1` throws (the exception layer), `?slow=1` waits past the route's time limit. */
  guard(request: Request): Promise<void> | null;
  routeOptions: RouteOptions;
  /** This suite's folder (templates/, files/). */
  dir: string;
}

export interface Feature {
  name: string;
  register(app: Webfw, ctx: FeatureContext): void;
  exchange(base: string, init: CallInit): Promise<Exchange>;
  verify(result: Exchange): void;
  skip?: Partial<Record<LayerName, string>>;
}

export type LayerName =
  | "before-middleware"
  | "after-middleware"
  | "cors"
  | "auth"
  | "sessions"
  | "header-config"
  | "exception-handler"
  | "request-timeout"
  | "request-id"
  | "compression"
  | "problem-details"
  | "observability";

export interface Layer {
  name: LayerName;
  install(app: Webfw): void;
  /**
   * `call` runs the feature's exchange with the bearer token and the given extras. `waited` is what
   * the layer's `wait` gave for this feature, when it has one.
   */
  check(
    feature: Feature,
    call: (init?: CallInit) => Promise<Exchange>,
    waited?: TimedExchange,
  ): Promise<void>;
  /**
   * The part of the check that only waits on the server's clock (the route's time limit): an
   * exchange, timed. combination.test.ts starts every feature's `wait` of a run mode at once and
   * hands each outcome to that feature's `check` (docs/testing.md, "What the suite costs").
   */
  wait?(feature: Feature, call: (init?: CallInit) => Promise<Exchange>): Promise<TimedExchange>;
}

export const featurePath = (name: string) => `/f/${name}`;

/**
 * How the suite's clients reach the server: plain HTTP/1.1, or TLS with HTTP/2 for the
 * `--tls-cert --http2` run mode (WebSockets then upgrade over HTTP/1.1 on the TLS port).
 * The test's certificate is self-signed, so the clients do not verify it there; curl
 * checks certificates in test/transport/.
 */
export const clientTransport: { tls: boolean; fresh: boolean } = { tls: false, fresh: false };

function fetchTransport(): RequestInit {
  if (clientTransport.tls) return { protocol: "http2", tls: { rejectUnauthorized: false } } as RequestInit;
  // Behind the two-machine balancer every request opens its own connection, so requests alternate machines.
  return clientTransport.fresh ? { keepalive: false } : {};
}

function url(base: string, path: string, query?: string): string {
  return `${base}${path}${query ? `?${query}` : ""}`;
}

/** One plain HTTP exchange; the body is read to its end (streams end by themselves here). */
export async function httpExchange(
  base: string,
  path: string,
  init: CallInit,
  request: RequestInit = {},
): Promise<Exchange> {
  const response = await fetch(url(base, path, init.query), {
    ...fetchTransport(),
    ...request,
    headers: { ...(request.headers as Record<string, string>), ...init.headers },
    redirect: "manual",
  });
  const started = performance.now();
  let firstChunkMs: number | undefined;
  let body = "";
  const decoder = new TextDecoder();
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      firstChunkMs ??= performance.now() - started;
      body += decoder.decode(chunk, { stream: true });
    }
  }
  body += decoder.decode();
  return {
    status: response.status,
    headers: response.headers,
    body,
    firstChunkMs,
    endMs: performance.now() - started,
  };
}

/** The WebSocket handshake over a raw socket (Bun's client hides the status of a refused upgrade). */
async function wsHandshake(base: string, path: string, init: CallInit): Promise<Exchange> {
  const { port } = new URL(base);
  const lines = [
    `GET ${path}${init.query ? `?${init.query}` : ""} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    "Upgrade: websocket",
    "Connection: Upgrade",
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version: 13",
    ...Object.entries(init.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
  ];
  const request = `${lines.join("\r\n")}\r\n\r\n`;
  let text = "";
  const { promise, resolve, reject } = Promise.withResolvers<Exchange>();
  const timer = setTimeout(() => reject(new Error("no handshake answer")), 5_000);
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port: Number(port),
    ...(clientTransport.tls ? { tls: { rejectUnauthorized: false } } : {}),
    socket: {
      // Over TLS a write before the handshake is lost: send the request once it is done.
      handshake(sock) {
        sock.write(request);
      },
      data(sock, chunk) {
        text += Buffer.from(chunk).toString("latin1");
        const end = text.indexOf("\r\n\r\n");
        if (end === -1) return;
        const [statusLine = "", ...headerLines] = text.slice(0, end).split("\r\n");
        const headers = new globalThis.Headers();
        for (const line of headerLines) {
          const colon = line.indexOf(":");
          headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
        }
        const status = Number(statusLine.split(" ")[1]);
        const length = Number(headers.get("content-length") ?? 0);
        if (status !== 101 && text.length - end - 4 < length) return;
        clearTimeout(timer);
        sock.end();
        resolve({ status, headers, body: text.slice(end + 4, end + 4 + length) });
      },
      error(_sock, error) {
        reject(error);
      },
    },
  });
  if (!clientTransport.tls) socket.write(request);
  return promise;
}

/** What a WebSocket conversation got: an answer per message sent (until the close), and the close. */
interface Conversation {
  answers: string[];
  close: { code: number; reason: string } | null;
}

/**
 * Sends `messages` on a real WebSocket one at a time, each after the answer to the one before,
 * and stops at the close (or after the last answer).
 */
async function wsConversation(
  base: string,
  path: string,
  headers: Record<string, string>,
  messages: string[],
): Promise<Conversation> {
  const options = clientTransport.tls ? { headers, tls: { rejectUnauthorized: false } } : { headers };
  const ws = new WebSocket(`${base.replace("http", "ws")}${path}`, options as unknown as string[]);
  const got: Conversation = { answers: [], close: null };
  const { promise, resolve, reject } = Promise.withResolvers<Conversation>();
  const timer = setTimeout(() => reject(new Error("no WebSocket answer")), 5_000);
  const sendNext = () => {
    const next = messages[got.answers.length];
    if (next === undefined) resolve(got);
    else ws.send(next);
  };
  ws.onopen = sendNext;
  ws.onmessage = (event) => {
    got.answers.push(String(event.data));
    sendNext();
  };
  ws.onclose = (event) => {
    got.close = { code: event.code, reason: event.reason };
    resolve(got);
  };
  ws.onerror = () => reject(new Error("WebSocket error"));
  try {
    return await promise;
  } finally {
    clearTimeout(timer);
    ws.close();
  }
}

/** Sends one message on a real WebSocket and returns the first answer. */
async function wsEcho(base: string, path: string, headers: Record<string, string>): Promise<string> {
  const { answers } = await wsConversation(base, path, headers, ["ping"]);
  if (answers[0] === undefined) throw new Error("no WebSocket answer");
  return answers[0];
}

const NOT_HTTP_RESPONSE = "a WebSocket has no HTTP response after the 101 for this layer to act on";

/** The layers a WebSocket row cannot take, and why. */
const WEBSOCKET_SKIP = {
  "after-middleware": NOT_HTTP_RESPONSE,
  cors: "browsers do not apply CORS to WebSocket handshakes",
  sessions: NOT_HTTP_RESPONSE,
  "header-config": NOT_HTTP_RESPONSE,
  "exception-handler": "a WebSocket handler's error closes the socket (docs/websockets.md), no HTTP answer",
  "request-timeout": "a WebSocket lives as long as it is open; no request time limit applies",
  "request-id": "Bun writes the 101 of an upgrade itself; the id is in request.id and the logs only",
  compression: NOT_HTTP_RESPONSE,
};

/** The features. One row each; see the header for how to add one. */
export const FEATURES: Feature[] = [
  ...UPLOADS_BG_ROWS,
  ...RATE_LIMIT_ROWS,
  ...CACHE_ROWS,
  {
    name: "json",
    register(app, ctx) {
      app.get(
        featurePath("json"),
        (request) =>
          ctx.guard(request)?.then(() => ({ never: true })) ?? {
            json: true,
            user: who(request),
            // Set by the before-middleware layer; seen by the handler wherever it runs.
            state: request.state.marker ?? null,
          },
        ctx.routeOptions,
      );
    },
    exchange: (base, init) => httpExchange(base, featurePath("json"), init),
    verify(result) {
      expect(result.status).toBe(200);
      // Made by `Response.json` (no Headers object), so the type is Bun's spelling (src/http/media-type.ts).
      expect(result.headers.get("content-type")).toBe("application/json;charset=utf-8");
      expect(JSON.parse(result.body)).toEqual({ json: true, user: "ada", state: "state-ok" });
    },
  },
  {
    // A string answer is made without any header (src/response/plain-text.ts): Bun writes the type.
    // Every layer that copies or rebuilds the response, and every run mode, must keep it.
    name: "text",
    register(app, ctx) {
      app.get(
        featurePath("text"),
        (request) => ctx.guard(request)?.then(() => "never") ?? `text for ${who(request)}`,
        ctx.routeOptions,
      );
    },
    exchange: (base, init) => httpExchange(base, featurePath("text"), init),
    verify(result) {
      expect(result.status).toBe(200);
      expect(result.headers.get("content-type")).toBe("text/plain;charset=utf-8");
      expect(result.body).toBe("text for ada");
    },
  },
  {
    // The request-target check a host-blind route leaves to the handler (src/serve/host-blind.ts):
    // reading the URL, the query and the headers finishes it; behind the layers it ran up front.
    // Either way the handler sees the Host the client sent and the query, in every run mode.
    name: "request-target",
    register(app, ctx) {
      app.get(
        featurePath("request-target"),
        (request) =>
          ctx.guard(request)?.then(() => ({ never: true })) ?? {
            host: request.url.host === request.headers.get("host"),
            q: request.queryParams.get("q"),
          },
        ctx.routeOptions,
      );
    },
    exchange: (base, init) =>
      httpExchange(base, featurePath("request-target"), {
        ...init,
        query: init.query ? `${init.query}&q=x%20y` : "q=x%20y",
      }),
    verify(result) {
      expect(result.status).toBe(200);
      expect(JSON.parse(result.body)).toEqual({ host: true, q: "x y" });
    },
  },
  {
    // webfw/client: a typed call (args, a t.object body) whose client is typed from the route's handle.
    name: "typed-client",
    register: registerTypedClientRoute,
    async exchange(base, init) {
      let raw: globalThis.Response | null = null;
      const api = client<TypedClientRoutes>(base, {
        fetch: async (request) => {
          const response = await fetch(request, fetchTransport());
          raw = response.clone();
          return response;
        },
      });
      const switches = new URLSearchParams(init.query ?? "");
      const result = await api.post("/f/typed-client", {
        args: {
          n: 7,
          fail: switches.get("fail") ?? undefined,
          slow: switches.get("slow") ?? undefined,
          block: switches.get("block") ?? undefined,
        },
        body: { text: "typed" },
        headers: init.headers ?? {},
      });
      const body = await (raw as globalThis.Response | null)?.text();
      if (body === undefined) throw new Error("the client sent nothing");
      // What the client read is what was on the wire, whatever the layer did to it.
      if (result.ok) expect(result.data).toEqual(JSON.parse(body));
      return { status: result.status, headers: result.headers, body };
    },
    verify(result) {
      expect(result.status).toBe(200);
      expect(JSON.parse(result.body)).toEqual({
        n: 7,
        text: "typed",
        user: "ada",
        at: "1970-01-01T00:00:00.000Z",
      });
    },
  },
  {
    name: "di",
    register(app, ctx) {
      // Live objects (a class instance with methods, a Map): a Worker gets its own, made by the
      // same registration when it imports the app file, never a clone.
      app.injectGlobal({ greeter: new Greeter("global") });
      const router = new SubRouter(import.meta.path, { prefix: "/f" });
      router.inject({ store: new Map([["k", "router"]]) });
      router.get(
        "/di",
        (request) => {
          const answer = () => {
            const greeter = request.globalDependencies.greeter as Greeter;
            const store = request.routerDependencies.store as Map<string, string>;
            return { global: greeter.greet(), router: store.get("k"), user: who(request) };
          };
          return ctx.guard(request)?.then(answer) ?? answer();
        },
        ctx.routeOptions,
      );
      app.includeRouter(router);
    },
    exchange: (base, init) => httpExchange(base, featurePath("di"), init),
    verify(result) {
      expect(result.status).toBe(200);
      expect(JSON.parse(result.body)).toEqual({ global: "hello from global", router: "router", user: "ada" });
    },
  },
  {
    // A before/after middleware pair on a sub-router only (what its cors() and sessions() install):
    // the planner gives the route its router's middlewares after the app's, in every run mode.
    name: "router-pair",
    register(app, ctx) {
      const router = new SubRouter(import.meta.path, { prefix: "/f" });
      router.beforeRequest((request) => {
        request.state.pair = "before-ran";
      });
      router.afterRequest((response) => {
        response.headers.set("x-router-pair", "after-ran");
      });
      router.get(
        "/router-pair",
        (request) => {
          const answer = () => ({ pair: request.state.pair ?? null, user: who(request) });
          return ctx.guard(request)?.then(answer) ?? answer();
        },
        ctx.routeOptions,
      );
      app.includeRouter(router);
    },
    exchange: (base, init) => httpExchange(base, featurePath("router-pair"), init),
    verify(result) {
      expect(result.status).toBe(200);
      expect(JSON.parse(result.body)).toEqual({ pair: "before-ran", user: "ada" });
      expect(result.headers.get("x-router-pair")).toBe("after-ran");
    },
  },
  {
    name: "sse",
    register(app, ctx) {
      app.get(
        featurePath("sse"),
        (request) => {
          const user = who(request);
          const events = sse(
            (async function* () {
              yield { data: `one ${user}` };
              await Bun.sleep(STREAM_GAP_MS);
              yield { data: "two" };
            })(),
          );
          return ctx.guard(request)?.then(() => events) ?? events;
        },
        ctx.routeOptions,
      );
    },
    exchange: (base, init) => httpExchange(base, featurePath("sse"), init),
    verify(result) {
      expect(result.status).toBe(200);
      expect(result.headers.get("content-type")).toStartWith("text/event-stream");
      expect(result.body).toContain("data: one ada\n\n");
      expect(result.body).toContain("data: two\n\n");
      expectStreamed(result);
    },
  },
  {
    // Topics: the handler subscribes, then publishes; the message comes back through the app's hub
    // (in a Worker: through the main thread's), behind every layer and in every run mode.
    name: "topics",
    register(app, ctx) {
      app.get(
        featurePath("topics"),
        (request) => {
          const user = who(request);
          const topic = `combo:${crypto.randomUUID()}`;
          const messages = app.subscribe(topic, request.raw.signal);
          const events = sse(
            (async function* () {
              setTimeout(() => app.publish(topic, { hello: user }), 20);
              const first = await messages.next();
              await messages.return?.();
              yield { data: String(first.value) };
            })(),
          );
          return ctx.guard(request)?.then(() => events) ?? events;
        },
        ctx.routeOptions,
      );
    },
    exchange: (base, init) => httpExchange(base, featurePath("topics"), init),
    verify(result) {
      expect(result.status).toBe(200);
      expect(result.headers.get("content-type")).toStartWith("text/event-stream");
      expect(result.body).toContain('data: {"hello":"ada"}\n\n');
    },
  },
  {
    name: "stream",
    register(app, ctx) {
      app.get(
        featurePath("stream"),
        (request) => {
          const user = who(request);
          const body = (async function* () {
            yield `chunk-1 ${user}\n`;
            await Bun.sleep(STREAM_GAP_MS);
            yield "chunk-2\n";
          })();
          return ctx.guard(request)?.then(() => body) ?? body;
        },
        ctx.routeOptions,
      );
    },
    exchange: (base, init) => httpExchange(base, featurePath("stream"), init),
    verify(result) {
      expect(result.status).toBe(200);
      expect(result.body).toBe("chunk-1 ada\nchunk-2\n");
      expectStreamed(result);
    },
  },
  {
    name: "file",
    register(app, ctx) {
      const path = join(ctx.dir, "files/hello.txt");
      app.get(
        featurePath("file"),
        (request) => ctx.guard(request)?.then(() => serveFile(path)) ?? serveFile(path),
        ctx.routeOptions,
      );
    },
    exchange: (base, init) => httpExchange(base, featurePath("file"), init),
    verify(result) {
      expect(result.status).toBe(200);
      expect(result.body).toBe("hello from a file\n");
    },
  },
  {
    name: "static",
    register(app, ctx) {
      // serveDirectory names files/: `webfw build` embeds it (and serveFile above reads from it).
      app.serveDirectory({ route: featurePath("static"), directoryPath: join(ctx.dir, "files") });
    },
    exchange: (base, init) => httpExchange(base, `${featurePath("static")}/hello.txt`, init),
    verify(result) {
      expect(result.status).toBe(200);
      expect(result.body).toBe("hello from a file\n");
    },
    skip: {
      auth: "static files are public: serveDirectory has no authRequired",
      "problem-details": "static files are public: no 401 to check (404/405 of files: test/problem)",
      "exception-handler": "no handler of the app's runs for a static file",
      "request-timeout": "no handler of the app's runs for a static file",
    },
  },
  {
    name: "template",
    register(app, ctx) {
      const templates = new MustacheTemplate(join(ctx.dir, "templates"));
      app.get(
        featurePath("template"),
        (request) => {
          const render = () =>
            new WebfwResponse(
              200,
              { "content-type": "text/html; charset=utf-8" },
              templates.renderTemplate("greeting", { name: who(request) }),
            );
          return ctx.guard(request)?.then(render) ?? render();
        },
        ctx.routeOptions,
      );
    },
    exchange: (base, init) => httpExchange(base, featurePath("template"), init),
    verify(result) {
      expect(result.status).toBe(200);
      expect(result.body).toBe("<p>Hello ada from a template</p>\n");
    },
  },
  {
    name: "upload",
    register(app, ctx) {
      app.post(
        featurePath("upload"),
        (request) => {
          const answer = () =>
            Object.entries(request.files).map(([name, data]) => ({
              name,
              size: data.length,
              user: who(request),
            }));
          return ctx.guard(request)?.then(answer) ?? answer();
        },
        ctx.routeOptions,
      );
    },
    exchange(base, init) {
      const form = new FormData();
      form.append("file", new Blob(["0123456789"]), "digits.txt");
      return httpExchange(base, featurePath("upload"), init, { method: "POST", body: form });
    },
    verify(result) {
      expect(result.status).toBe(200);
      expect(JSON.parse(result.body)).toEqual([{ name: "digits.txt", size: 10, user: "ada" }]);
    },
  },
  {
    // Streamed multipart (src/uploads/): parts read from the socket as they arrive, on the main
    // thread (a body stream cannot cross to a Worker, so this row does not offload).
    name: "stream-upload",
    register(app, ctx) {
      app.post(
        featurePath("stream-upload"),
        async (request) => {
          await ctx.guard(request);
          const parts: { name: string; file: string | null; size: number }[] = [];
          for await (const part of request.parts()) {
            parts.push({ name: part.name, file: part.fileName, size: (await part.bytes()).byteLength });
          }
          return { parts, user: who(request) };
        },
        { ...ctx.routeOptions, offload: false, body: "stream" },
      );
    },
    exchange(base, init) {
      const form = new FormData();
      form.append("note", "hello");
      form.append("file", new Blob([new Uint8Array(100_000).fill(9)]), "data.bin");
      return httpExchange(base, featurePath("stream-upload"), init, { method: "POST", body: form });
    },
    verify(result) {
      expect(result.status).toBe(200);
      expect(JSON.parse(result.body)).toEqual({
        parts: [
          { name: "note", file: null, size: 5 },
          { name: "file", file: "data.bin", size: 100_000 },
        ],
        user: "ada",
      });
    },
  },
  {
    name: "websocket",
    register(app, ctx) {
      app.websocket(
        featurePath("websocket"),
        async (ws) => {
          for await (const message of ws) await ws.sendText(`echo ${String(message)}`);
        },
        { authRequired: ctx.routeOptions.authRequired === true },
      );
    },
    async exchange(base, init) {
      const handshake = await wsHandshake(base, featurePath("websocket"), init);
      if (handshake.status !== 101) return handshake;
      const echo = await wsEcho(base, featurePath("websocket"), init.headers ?? {});
      return { ...handshake, body: echo };
    },
    verify(result) {
      expect(result.status).toBe(101);
      expect(result.body).toBe("echo ping");
    },
    skip: WEBSOCKET_SKIP,
  },
  {
    // Messages declared with schemas (checked at run time): a valid message is answered, one that
    // does not match closes the connection with 1007, behind every layer and in every run mode.
    name: "websocket-schema",
    register(app, ctx) {
      app
        .websocket(
          featurePath("websocket-schema"),
          async (ws) => {
            for (;;) {
              const { text } = await ws.receiveJson<{ text: string }>();
              await ws.sendJson({ echo: `${text} ${who(ws)}` });
            }
          },
          { authRequired: ctx.routeOptions.authRequired === true },
        )
        .messages({ client: t.object({ text: t.str() }), server: t.object({ echo: t.str() }) });
    },
    async exchange(base, init) {
      const handshake = await wsHandshake(base, featurePath("websocket-schema"), init);
      if (handshake.status !== 101) return handshake;
      const talk = await wsConversation(base, featurePath("websocket-schema"), init.headers ?? {}, [
        JSON.stringify({ text: "ping" }),
        JSON.stringify({ text: 5 }),
      ]);
      return { ...handshake, body: JSON.stringify(talk) };
    },
    verify(result) {
      expect(result.status).toBe(101);
      const talk = JSON.parse(result.body) as Conversation;
      expect(talk.answers).toEqual([JSON.stringify({ echo: "ping ada" })]);
      expect(talk.close?.code).toBe(1007);
      expect(talk.close?.reason).toStartWith("invalid message: text: ");
    },
    skip: WEBSOCKET_SKIP,
  },
  {
    name: "mcp",
    register(app, ctx) {
      // A browser page of ORIGIN may call the endpoint (the cors layer); other origins are refused.
      app.mcp.configure({ authRequired: ctx.routeOptions.authRequired === true, allowedOrigins: [ORIGIN] });
      app.mcp.tool(({ a, b }) => String(a + b), {
        name: "add",
        description: "Add",
        args: { a: t.int(), b: t.int() },
      });
    },
    // A whole MCP session beside the layer: initialize, then a call carrying the session id (with
    // --processes 2 it may land on the other process and is relayed to the session's own).
    async exchange(base, init) {
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
      const opened = await httpExchange(base, "/mcp", init, {
        method: "POST",
        headers,
        body: JSON.stringify(initializeMessage({ client: "combo" })),
      });
      const session = opened.headers.get("mcp-session-id");
      if (opened.status !== 200 || session === null) return opened;
      return httpExchange(base, "/mcp", init, {
        method: "POST",
        headers: { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "add", arguments: { a: 2, b: 40 } },
        }),
      });
    },
    verify(result) {
      expect(result.status).toBe(200);
      expect(result.headers.get("content-type")).toBe("application/json");
      expect(result.body).toContain('"text":"42"');
      expect(result.body).toContain('"id":1');
    },
    skip: {
      "exception-handler": "a tool's error is a JSON-RPC result (isError), not an HTTP error",
      "request-timeout": "the MCP endpoint is the framework's route, without a route time limit",
      "problem-details": "the MCP endpoint answers its errors in JSON-RPC (docs/mcp.md), not problem details",
    },
  },
  {
    // A rate-limited route: one request per key. Each exchange uses a fresh key twice: the first is
    // counted and served (r=0 left), the second refused with 429, whatever layer or run mode is around it.
    name: "rate-limit",
    register(app, ctx) {
      app.get(
        featurePath("rate-limit"),
        (request) =>
          ctx.guard(request)?.then(() => ({ never: true })) ?? { limited: true, user: who(request) },
        {
          ...ctx.routeOptions,
          rateLimit: {
            limit: 1,
            windowMs: 60_000,
            key: (request: Request) => request.headers.get("x-limit-key"),
            // Two machines (REDIS_URL set) share one count, as a deployment behind a balancer would.
            ...(process.env.REDIS_URL ? { store: new RedisStore({ url: process.env.REDIS_URL }) } : {}),
          },
        },
      );
    },
    async exchange(base, init) {
      const key = crypto.randomUUID();
      const headers = { ...init.headers, "x-limit-key": key };
      const first = await httpExchange(base, featurePath("rate-limit"), { ...init, headers });
      const second = await httpExchange(base, featurePath("rate-limit"), { ...init, headers });
      first.headers.set("x-second-status", String(second.status));
      if (second.status === 429)
        first.headers.set("x-second-retry-after", second.headers.get("retry-after") ?? "");
      return first;
    },
    verify(result) {
      expect(result.status).toBe(200);
      expect(JSON.parse(result.body)).toEqual({ limited: true, user: "ada" });
      expect(result.headers.get("ratelimit-policy")).toBe('"GET /f/rate-limit";q=1;w=60');
      expect(result.headers.get("ratelimit")).toMatch(/^"GET \/f\/rate-limit";r=0;t=\d+$/);
      expect(result.headers.get("x-second-status")).toBe("429");
      expect(Number(result.headers.get("x-second-retry-after"))).toBeGreaterThan(0);
    },
  },
  {
    // A route that is also an MCP tool (issue #16): the exchange is an MCP session (initialize, then
    // tools/call); the tool runs the route's whole pipeline with the caller's token, in every run mode.
    name: "mcp-route-tool",
    register(app, ctx) {
      app.get(
        featurePath("mcp-route-tool"),
        (request) =>
          ctx.guard(request)?.then(() => ({ never: true })) ?? {
            tool: true,
            user: who(request),
            state: request.state.marker ?? null,
          },
        { ...ctx.routeOptions, mcp: { name: "combo_route_tool" } },
      );
    },
    async exchange(base, init) {
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
      const initialize = JSON.stringify(
        initializeMessage({ id: 1, client: "combo", protocolVersion: "2025-06-18" }),
      );
      const opened = await httpExchange(base, "/mcp", init, { method: "POST", body: initialize, headers });
      if (opened.status !== 200) return opened;
      const session = opened.headers.get("mcp-session-id");
      const call = JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "combo_route_tool", arguments: {} },
      });
      return httpExchange(base, "/mcp", init, {
        method: "POST",
        body: call,
        headers: {
          ...headers,
          "mcp-protocol-version": "2025-06-18",
          ...(session === null ? {} : { "mcp-session-id": session }),
        },
      });
    },
    verify(result) {
      expect(result.status).toBe(200);
      const body = result.body.startsWith("{")
        ? result.body
        : (result.body.match(/^data: (.*)$/m)?.[1] ?? "");
      const answer = JSON.parse(body) as { result: { structuredContent: unknown; isError?: boolean } };
      expect(answer.result.isError).toBeFalsy();
      // The route saw the MCP caller's token (auth) and the before-middleware's state of ITS request.
      expect(answer.result.structuredContent).toEqual({ tool: true, user: "ada", state: "state-ok" });
    },
    skip: {
      "exception-handler":
        "the route's error reaches the client as an isError tool result, not an HTTP error",
      "request-timeout": "the route's 503 reaches the client as an isError tool result, not an HTTP status",
      "problem-details":
        "the MCP endpoint answers in JSON-RPC, and the route's errors are isError tool results",
    },
  },
  {
    // request.background: the answer comes first; the task (on the Worker when offloaded) then writes
    // a file named by the exchange's token, which the exchange waits for.
    name: "background",
    register(app, ctx) {
      app.get(
        featurePath("background"),
        (request) => {
          const token = request.queryParams.get("token", "") as string;
          const answer = () => {
            if (/^[0-9a-f-]{36}$/.test(token)) {
              const user = who(request);
              request.background(async () => {
                await Bun.sleep(50);
                await leaveBackgroundMark(token, `${user} ${request.id}`);
              });
            }
            return { queued: true, user: who(request) };
          };
          return ctx.guard(request)?.then(answer) ?? answer();
        },
        ctx.routeOptions,
      );
    },
    exchange: (base, init) => exchangeWithTask(base, featurePath("background"), init),
    verify(result) {
      expect(result.status).toBe(200);
      expect(JSON.parse(result.body)).toEqual({ queued: true, user: "ada" });
      expect(result.headers.get("x-task")).toStartWith("ada ");
    },
  },
  {
    // A const route: its handler ran once at start; every layer still applies per request (with the
    // suite's global middlewares, ids, limits and observability it is never a static Bun answer).
    name: "const",
    register(app, ctx) {
      let calls = 0;
      app.get(featurePath("const"), () => ({ value: "computed once", calls: ++calls }), {
        ...ctx.routeOptions,
        const: true,
      });
    },
    exchange: (base, init) => httpExchange(base, featurePath("const"), init),
    verify(result) {
      expect(result.status).toBe(200);
      expect(result.headers.get("content-type")).toBe("application/json;charset=utf-8");
      expect(JSON.parse(result.body)).toEqual({ value: "computed once", calls: 1 });
    },
    skip: {
      "exception-handler": "a const handler runs once at start, not per request: nothing to fail on ?fail=1",
      "request-timeout": "a const handler runs once at start, not per request: nothing to slow down",
    },
  },
  {
    // request.background on a streamed answer: the task waits for the body's end (the generator's
    // last chunk), in every layer and run mode; it records whether the generator had finished.
    name: "background-stream",
    register(app, ctx) {
      app.get(
        featurePath("background-stream"),
        (request) => {
          const token = request.queryParams.get("token", "") as string;
          const answer = () => {
            const user = who(request);
            let finished = false;
            if (/^[0-9a-f-]{36}$/.test(token)) {
              request.background(() =>
                leaveBackgroundMark(
                  token,
                  `${user} ${finished ? "after the body" : "before the body ended"}`,
                ),
              );
            }
            return (async function* () {
              yield `part-1 ${user}\n`;
              await Bun.sleep(STREAM_GAP_MS);
              yield "part-2\n";
              finished = true;
            })();
          };
          return ctx.guard(request)?.then(answer) ?? answer();
        },
        ctx.routeOptions,
      );
    },
    exchange: (base, init) => exchangeWithTask(base, featurePath("background-stream"), init),
    verify(result) {
      expect(result.status).toBe(200);
      expect(result.body).toBe("part-1 ada\npart-2\n");
      expectStreamed(result);
      expect(result.headers.get("x-task")).toBe("ada after the body");
    },
  },
  ...MCP_HARDENING_ROWS,
  ...SECURE_HTTP_ROWS,
  ...JWT_AUTH_ROWS,
  ...DX_ROWS,
  ...MCP_APPS_ROWS,
  ...JOBS_ROWS,
  ...CLIENT_ADDRESS_ROWS,
  ...CONTRACTS_ROWS,
  ...typesRows,
  ...DASHBOARD_ROWS,
];

/** The typed-client row's route; the row's client is typed from this handle (docs/client.md). */
function registerTypedClientRoute(app: Webfw, ctx: FeatureContext) {
  return app.post(
    "/f/typed-client",
    (request) => {
      const answer = () => ({
        n: request.args.n,
        text: request.parsedBody.text,
        user: who(request),
        at: new Date(0),
      });
      return ctx.guard(request)?.then(answer) ?? answer();
    },
    {
      ...ctx.routeOptions,
      // The suite's `?fail=1`, `?slow=1` and `?block=1` switches are arguments like any other for a typed client.
      args: { n: t.int(), fail: t.optional(t.str()), slow: t.optional(t.str()), block: t.optional(t.str()) },
      body: t.object({ text: t.str() }),
    },
  );
}
type TypedClientRoutes = { route: ReturnType<typeof registerTypedClientRoute> };

/** Where a background row's task leaves its mark (the suite's app may run in other processes). */
function backgroundFile(token: string): string {
  return join(tmpdir(), `webfw-combination-background-${token}`);
}

/** Written aside, then renamed: the exchange never sees a half-written file. */
async function leaveBackgroundMark(token: string, text: string): Promise<void> {
  const file = backgroundFile(token);
  await Bun.write(`${file}.part`, text);
  renameSync(`${file}.part`, file);
}

/**
 * A background row's exchange: the route gets a fresh token, and once it answered 200 the exchange
 * waits for the task's mark and returns it as the `x-task` header (`missing` when it never came).
 */
async function exchangeWithTask(base: string, path: string, init: CallInit): Promise<Exchange> {
  const token = crypto.randomUUID();
  const query = [init.query, `token=${token}`].filter(Boolean).join("&");
  const result = await httpExchange(base, path, { ...init, query });
  const file = backgroundFile(token);
  if (result.status === 200) {
    for (let i = 0; i < 300 && !existsSync(file); i++) await Bun.sleep(10);
    result.headers.set("x-task", existsSync(file) ? readFileSync(file, "utf8") : "missing");
    rmSync(file, { force: true });
  }
  return result;
}

/** The identity's user, or "anonymous". */
function who(request: { identity: Request["identity"] }): string {
  return (request.identity?.claims.user as string | undefined) ?? "anonymous";
}

class Greeter {
  constructor(private readonly name: string) {}
  greet(): string {
    return `hello from ${this.name}`;
  }
}

class ComboAuth extends AuthenticationHandler {
  authenticate(request: Request): Identity | null {
    const token = this.tokenGetter.getToken(request);
    if (token === OTHER_TOKEN) return new Identity({ claims: { user: "grace" } });
    return token === TOKEN ? new Identity({ claims: { user: "ada" } }) : null;
  }
}

/** The layers. All are installed at once; each cell checks one layer's effect on one feature. */
export const LAYERS: Layer[] = [
  {
    name: "before-middleware",
    install(app) {
      app.beforeRequest((request) => {
        if (request.queryParams.get("block", "") === "1") return new WebfwResponse(403, {}, "blocked before");
        request.state.marker = "state-ok";
        return undefined;
      });
    },
    async check(feature, call) {
      const blocked = await call({ query: "block=1" });
      expect(blocked.status).toBe(403);
      feature.verify(await call());
    },
  },
  {
    name: "after-middleware",
    install(app) {
      app.afterRequest((response, request) => {
        response.headers.set("x-after", String(request.state.marker ?? "none"));
        response.setCookie("after", "1");
        return response;
      });
    },
    async check(feature, call) {
      const result = await call();
      feature.verify(result);
      // The state a before-middleware set reaches the after-middleware (whatever ran the handler).
      expect(result.headers.get("x-after")).toBe("state-ok");
      expect(result.headers.getSetCookie().some((c) => c.startsWith("after=1"))).toBe(true);
    },
  },
  {
    name: "cors",
    install(app) {
      app.cors({ origins: [ORIGIN] });
    },
    async check(feature, call) {
      const result = await call({ headers: { origin: ORIGIN } });
      feature.verify(result);
      expect(result.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    },
  },
  {
    name: "auth",
    install(app) {
      app.configureAuthentication(new ComboAuth(new BearerGetter()));
    },
    async check(feature, call) {
      const refused = await call({ headers: { authorization: "Bearer wrong" } });
      expect(refused.status).toBe(401);
      feature.verify(await call());
    },
  },
  {
    name: "sessions",
    install(app) {
      app.sessions({ secretKey: SESSION_KEY });
      app.beforeRequest((request) => {
        const session = request.session;
        if (session) session.set("hits", (session.get("hits", 0) as number) + 1);
      });
      app.afterRequest((response, request) => {
        response.headers.set("x-hits", String(request.session?.get("hits", 0) ?? "none"));
        return response;
      });
    },
    async check(feature, call) {
      const first = await call();
      feature.verify(first);
      expect(first.headers.get("x-hits")).toBe("1");
      const cookie = first.headers.getSetCookie().find((c) => c.startsWith("session="));
      expect(cookie).toBeDefined();
      const second = await call({ headers: { cookie: (cookie as string).split(";")[0] as string } });
      feature.verify(second);
      expect(second.headers.get("x-hits")).toBe("2");
    },
  },
  {
    name: "header-config",
    install(app) {
      app.setResponseHeader("x-config", "on");
    },
    async check(feature, call) {
      const result = await call();
      feature.verify(result);
      expect(result.headers.get("x-config")).toBe("on");
    },
  },
  {
    name: "exception-handler",
    install(app) {
      app.exception((error) => {
        if (error instanceof HttpError) throw error;
        return [{ handled: (error as Error).message }, 418];
      });
    },
    async check(_feature, call) {
      const result = await call({ query: "fail=1" });
      expect(result.status).toBe(418);
      expect(JSON.parse(result.body)).toEqual({ handled: "feature failed on purpose" });
    },
  },
  {
    name: "request-timeout",
    install() {
      // Per route: `timeoutMs` in the feature's route options (see app.ts).
    },
    // Each slow call waits one route time limit; one after the other, a mode's 31 cost ~33 s.
    wait: slowCall,
    async check(feature, call, waited) {
      const result = waited ?? (await slowCall(feature, call));
      expect(result.status).toBe(503);
      expect(result.elapsedMs).toBeLessThan(SLOW_MS - 1_000);
      // The route still answers after a timed-out request. In a Worker mode the Workers that ran
      // slow calls are being replaced: a call can reach its own deadline in the queue meanwhile, the
      // pool's documented 503 (docs/workers.md), so that one is asked again.
      let again = await call();
      for (let tries = 0; again.status === 503 && tries < 10; tries++) {
        await Bun.sleep(ROUTE_TIMEOUT_MS / 2);
        again = await call();
      }
      feature.verify(again);
    },
  },
  {
    name: "request-id",
    install() {
      // `new Webfw(path, { requestId: true })` in app.ts: the option is the app's, not a call.
    },
    async check(feature, call) {
      const sent = `combo-${process.pid}-${crypto.randomUUID()}`;
      const kept = await call({ headers: { "x-request-id": sent } });
      feature.verify(kept);
      expect(kept.headers.get("x-request-id")).toBe(sent);
      // A hostile id (a space, too long) is replaced by a UUIDv7, whatever runs the handler.
      const replaced = await call({ headers: { "x-request-id": `bad id ${"x".repeat(130)}` } });
      feature.verify(replaced);
      expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    },
  },
  {
    name: "problem-details",
    install() {
      // `new Webfw(path, { errors: "problem" })` in app.ts.
    },
    async check(feature, call) {
      // The auth layer's 401 is a built-in error: as problem details, WWW-Authenticate kept.
      const refused = await call({ headers: { authorization: "Bearer wrong" } });
      expect(refused.status).toBe(401);
      expect(refused.headers.get("content-type")).toBe("application/problem+json");
      expect(refused.headers.get("www-authenticate")).toStartWith("Bearer");
      const problem = JSON.parse(refused.body) as Record<string, unknown>;
      expect(problem).toMatchObject({ type: "about:blank", title: "Unauthorized", status: 401 });
      expect(problem.requestId).toBe(refused.headers.get("x-request-id") as string);
      feature.verify(await call());
    },
  },
];

/**
 * The compression column (src/compression/): app.ts builds the app with `compression: { threshold: 0 }`,
 * so every cell above already runs with it (fetch asks for gzip, br, zstd and decodes). Here each
 * coding is asked for by name: a body of a compressible type comes back in that coding (decoded by
 * the client, then checked as usual), with `Vary`; event streams and untyped streams as they are.
 */
const compressionLayer: Layer = {
  name: "compression",
  install() {
    // A constructor option (app.ts): new Webfw(path, { compression: { threshold: 0 } }).
  },
  async check(feature, call) {
    for (const coding of ["zstd", "br", "gzip"]) {
      const result = await call({ headers: { "accept-encoding": coding } });
      feature.verify(result);
      const type = result.headers.get("content-type");
      const expected = type !== null && isCompressibleType(type) ? coding : null;
      expect(result.headers.get("content-encoding")).toBe(expected);
      if (expected) expect(result.headers.get("vary")?.toLowerCase()).toContain("accept-encoding");
    }
  },
};
LAYERS.push(compressionLayer);

/**
 * The observability column (src/observability/): app.ts builds the app with `tracing: true,
 * metrics: true`, and combination.test.ts runs every mode with `OTEL_EXPORTER_OTLP_ENDPOINT`
 * pointing at an OTLP receiver in the test, so webfw's SDK exports from every process and
 * Worker. Each cell continues a client trace and finds its server span (a child of the client's
 * span, with the status the client got) and the request counted in the one-scrape `/metrics`.
 */
export const observed: { receiver: OtlpReceiver | null; scraped: string[] } = { receiver: null, scraped: [] };

/** The features' requests counted by every scraped server (each machine has its own `/metrics`). */
async function requestCount(): Promise<number> {
  let total = 0;
  for (const base of observed.scraped) {
    const response = await fetch(`${base}/metrics`, fetchTransport());
    expect(response.status).toBe(200);
    for (const line of (await response.text()).split("\n")) {
      // The scrapes themselves are counted too: only the features' requests are summed.
      if (
        line.startsWith("http_server_request_duration_seconds_count{") &&
        !line.includes('route="/metrics"')
      )
        total += Number(line.slice(line.lastIndexOf(" ") + 1));
    }
  }
  return total;
}

const observabilityLayer: Layer = {
  name: "observability",
  install() {
    // Constructor options (app.ts): new Webfw(path, { tracing: true, metrics: true }).
  },
  async check(feature, call) {
    const receiver = observed.receiver as OtlpReceiver;
    const before = await requestCount();
    const traceId = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex");
    const spanId = Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString("hex");
    const result = await call({ headers: { traceparent: `00-${traceId}-${spanId}-01` } });
    feature.verify(result);
    // The exchange's span with the status the client got (an exchange of several requests, or two
    // machines, exports its spans in more than one batch: the first to arrive may be another's).
    await receiver.waitFor(
      (spans) =>
        spans.some(
          (s) =>
            s.traceId === traceId &&
            s.kind === 2 &&
            s.attributes["http.response.status_code"] === result.status,
        ),
      10_000,
    );
    // One server span per request the exchange made (the WebSocket row makes two connections).
    const servers = receiver.spans.filter((s) => s.traceId === traceId && s.kind === 2);
    expect(servers.some((server) => server.parentSpanId === spanId)).toBe(true);
    // A route called as an MCP tool nests under the `tools/call` span (docs/mcp-route-tools.md):
    // every other server span's parent is a span of this trace.
    for (const server of servers.filter((s) => s.parentSpanId !== spanId)) {
      await receiver.waitFor((spans) => spans.some((s) => s.spanId === server.parentSpanId), 10_000);
      const parent = receiver.spans.find((s) => s.spanId === server.parentSpanId);
      expect(parent?.traceId).toBe(traceId);
      expect(parent?.name).toStartWith("tools/call ");
    }
    expect(servers.map((server) => server.attributes["http.response.status_code"])).toContain(result.status);
    expect(await requestCount()).toBeGreaterThan(before);
  },
};
LAYERS.push(observabilityLayer);

/**
 * The request-timeout column's slow exchange (`?slow=1`), timed. Over HTTP/1.1 it closes its
 * connections: run together (combination.test.ts), the slow calls would otherwise leave the client
 * a pool of idle connections to both processes of `--processes 2`, and an exchange whose two
 * requests must reach one process (a per-process rate limit, rows-rate-limit.ts) could be split.
 */
async function slowCall(
  _feature: Feature,
  call: (init?: CallInit) => Promise<Exchange>,
): Promise<TimedExchange> {
  const started = performance.now();
  const result = await call({ query: "slow=1", headers: clientTransport.tls ? {} : { connection: "close" } });
  return { ...result, elapsedMs: performance.now() - started };
}

/** `?fail=1` / `?slow=1` handling shared by every feature handler. */
export function guard(request: Request): Promise<void> | null {
  if (request.queryParams.get("fail", "") === "1") throw new Error("feature failed on purpose");
  if (request.queryParams.get("slow", "") === "1") return Bun.sleep(SLOW_MS);
  return null;
}
