/**
 * Conditional requests over a real socket, with npm `http-cache-semantics` (a cache's view of
 * RFC 9111) as the yardstick: every 200 it stores, it revalidates with the headers it chooses,
 * and it must agree with every 304 (not modified) and every changed answer (modified).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import CachePolicy from "http-cache-semantics";
import {
  html,
  type ServerHandle,
  serveFile,
  sse,
  Webfw,
  Response as WebfwResponse,
} from "../../src/index.ts";

let server: ServerHandle;
let version = 1;
let handlerRuns = 0;
const doc = { id: 1, etag: '"v1"', modified: new Date("2025-01-01T00:00:00Z"), text: "first" };

beforeAll(async () => {
  const app = new Webfw(import.meta.path);
  const cached = { etag: true, cacheControl: "public, max-age=60" } as const;
  app.get("/json", () => ({ version }), cached);
  app.get("/text", () => `text v${version}`, { etag: true });
  app.get("/bytes", () => new Uint8Array([1, 2, 3, version]), { etag: true });
  app.get("/html", () => html(`<p>v${version}</p>`), { etag: true });
  app.get(
    "/stream",
    () =>
      new ReadableStream({
        async pull(controller) {
          await Bun.sleep(5);
          controller.enqueue(new TextEncoder().encode("chunk"));
          controller.close();
        },
      }),
    { etag: true },
  );
  app.get(
    "/events",
    () =>
      sse(
        (async function* () {
          yield "one";
        })(),
      ),
    { etag: true },
  );
  app.get("/file", () => serveFile(join(import.meta.dir, "conditional.test.ts")), { etag: true });
  app.get("/plain", () => ({ version }));
  app.get("/missing", () => [{ error: "no" }, 404], cached);
  app.get("/dated", () => new WebfwResponse(200, { "last-modified": doc.modified.toUTCString() }, "dated"), {
    etag: true,
  });
  app.get("/cookie", () => ({ version }), { etag: true });
  app.afterRequest((response) => {
    response.setCookie("seen", "1");
    return response;
  });
  app.put(
    "/doc",
    (request) => {
      handlerRuns++;
      doc.text = request.json<{ text: string }>().text;
      doc.etag = `"v${Number(doc.etag.slice(2, -1)) + 1}"`;
      doc.modified = new Date();
      return new WebfwResponse(200, { etag: doc.etag }, doc.text);
    },
    { preconditions: () => (doc.id === 0 ? null : { etag: doc.etag, lastModified: doc.modified }) },
  );
  server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
});
afterAll(() => server.stop(true));

const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
  fetch(`${server.url}${path}`, { method, headers });

/** The request and response as http-cache-semantics reads them. */
function cacheView(path: string, response: globalThis.Response, headers: Record<string, string> = {}) {
  return {
    request: { url: path, method: "GET", headers: { host: "127.0.0.1", ...headers } },
    response: { status: response.status, headers: Object.fromEntries(response.headers) },
  };
}

describe("ETags and If-None-Match", () => {
  test("JSON, text, bytes and html(): a weak ETag; the cache's revalidation gets a bodiless 304 it accepts", async () => {
    for (const path of ["/json", "/text", "/bytes", "/html"]) {
      const first = await get(path);
      const body = await first.text();
      const etag = first.headers.get("etag");
      expect([path, etag]).toEqual([path, expect.stringMatching(/^W\/"[0-9a-f]+-[0-9a-z]+"$/)]);
      const view = cacheView(path, first);
      const policy = new CachePolicy(view.request, view.response);
      const revalidation = policy.revalidationHeaders(view.request) as Record<string, string>;
      expect(revalidation["if-none-match"]).toBe(etag as string);
      const second = await get(path, revalidation);
      expect(second.status).toBe(304);
      expect(await second.text()).toBe("");
      expect(second.headers.get("etag")).toBe(etag);
      expect(second.headers.get("content-type")).toBeNull();
      const { modified } = policy.revalidatedPolicy(
        { ...view.request, headers: { ...view.request.headers, ...revalidation } },
        { status: 304, headers: Object.fromEntries(second.headers) },
      );
      expect([path, modified]).toEqual([path, false]);
      expect(body.length).toBeGreaterThan(0);
    }
  });

  test("a changed body: a new ETag, 200, and the cache sees it as modified", async () => {
    const first = await get("/json");
    const view = cacheView("/json", first);
    const policy = new CachePolicy(view.request, view.response);
    version++;
    const revalidation = policy.revalidationHeaders(view.request) as Record<string, string>;
    const second = await get("/json", revalidation);
    expect(second.status).toBe(200);
    expect(second.headers.get("etag")).not.toBe(first.headers.get("etag"));
    expect(await second.json()).toEqual({ version });
    const { modified } = policy.revalidatedPolicy(view.request, cacheView("/json", second).response);
    expect(modified).toBe(true);
  });

  test("cacheControl: the 200 and the 304 carry it; the cache stores and serves without revalidating", async () => {
    const first = await get("/json");
    expect(first.headers.get("cache-control")).toBe("public, max-age=60");
    const view = cacheView("/json", first);
    const policy = new CachePolicy(view.request, view.response, { shared: true });
    expect(policy.storable()).toBe(true);
    expect(policy.timeToLive()).toBeGreaterThan(55_000);
    expect(policy.satisfiesWithoutRevalidation(view.request)).toBe(true);
    const notModified = await get("/json", { "if-none-match": first.headers.get("etag") as string });
    expect(notModified.headers.get("cache-control")).toBe("public, max-age=60");
    // Errors are not given the route's caching: a cache must not keep a 404 for a minute.
    const missing = await get("/missing");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("cache-control")).toBeNull();
    expect(missing.headers.get("etag")).toBeNull();
  });

  test("If-None-Match lists, *, weak comparison; HEAD too; a mismatching tag is a 200", async () => {
    const etag = (await get("/text")).headers.get("etag") as string;
    const strongForm = etag.slice(2);
    expect((await get("/text", { "if-none-match": `"nope", ${etag}` })).status).toBe(304);
    expect((await get("/text", { "if-none-match": strongForm })).status).toBe(304);
    expect((await get("/text", { "if-none-match": "*" })).status).toBe(304);
    expect((await get("/text", { "if-none-match": '"nope"' })).status).toBe(200);
    expect((await get("/text", { "if-none-match": "garbage without quotes" })).status).toBe(200);
    const head = await get("/text", { "if-none-match": etag }, "HEAD");
    expect(head.status).toBe(304);
  });

  test("If-Modified-Since against the answer's Last-Modified (when no If-None-Match)", async () => {
    const modified = doc.modified.toUTCString();
    expect((await get("/dated", { "if-modified-since": modified })).status).toBe(304);
    expect((await get("/dated", { "if-modified-since": "Tue, 01 Jan 2019 00:00:00 GMT" })).status).toBe(200);
    expect((await get("/dated", { "if-modified-since": "not a date" })).status).toBe(200);
    // If-None-Match wins over If-Modified-Since.
    expect((await get("/dated", { "if-modified-since": modified, "if-none-match": '"x"' })).status).toBe(200);
  });

  test("streams and SSE get no ETag and keep streaming; a file keeps its own strong ETag and 304", async () => {
    for (const path of ["/stream", "/events"]) {
      const response = await get(path);
      expect([path, response.status, response.headers.get("etag")]).toEqual([path, 200, null]);
      await response.text();
    }
    const file = await get("/file");
    const fileTag = file.headers.get("etag") as string;
    expect(fileTag).toMatch(/^"/);
    await file.arrayBuffer();
    expect((await get("/file", { "if-none-match": fileTag })).status).toBe(304);
  });

  test("a route without etag gets none; the 304 keeps Set-Cookie of an after-middleware", async () => {
    expect((await get("/plain")).headers.get("etag")).toBeNull();
    const etag = (await get("/cookie")).headers.get("etag") as string;
    const notModified = await get("/cookie", { "if-none-match": etag });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.getSetCookie()[0]).toStartWith("seen=1");
  });
});

describe("preconditions on unsafe methods", () => {
  const put = (headers: Record<string, string>) =>
    fetch(`${server.url}/doc`, {
      method: "PUT",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ text: "edit" }),
    });

  test("If-Match with the current ETag runs the handler; a stale one is 412 and changes nothing", async () => {
    const current = doc.etag;
    const runs = handlerRuns;
    const ok = await put({ "if-match": current });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("etag")).toBe(doc.etag);
    const stale = await put({ "if-match": current });
    expect(stale.status).toBe(412);
    expect(handlerRuns).toBe(runs + 1);
    // A weak tag never satisfies If-Match (strong comparison); a malformed header matches nothing.
    expect((await put({ "if-match": `W/${doc.etag}` })).status).toBe(412);
    expect((await put({ "if-match": "v2" })).status).toBe(412);
    expect((await put({ "if-match": `"x", ${doc.etag}` })).status).toBe(200);
  });

  test("If-Unmodified-Since: an older date is 412; If-None-Match: * on an existing resource is 412", async () => {
    expect((await put({ "if-unmodified-since": "Tue, 01 Jan 2019 00:00:00 GMT" })).status).toBe(412);
    const future = new Date(Date.now() + 60_000).toUTCString();
    expect((await put({ "if-unmodified-since": future })).status).toBe(200);
    expect((await put({ "if-unmodified-since": "garbage" })).status).toBe(200);
    expect((await put({ "if-none-match": "*" })).status).toBe(412);
    expect((await put({ "if-none-match": doc.etag })).status).toBe(412);
  });

  test("a resource that does not exist: If-Match: * is 412, If-None-Match: * proceeds (create-only)", async () => {
    doc.id = 0;
    try {
      expect((await put({ "if-match": "*" })).status).toBe(412);
      expect((await put({ "if-none-match": "*" })).status).toBe(200);
    } finally {
      doc.id = 1;
    }
  });

  test("bad route options stop the start", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/x", () => "x", { cacheControl: "max-age=1\r\nx-injected: 1" });
    await expect(app.request("/x")).rejects.toThrow(/cacheControl/);
  });
});

describe("the app option", () => {
  test("etag: true covers every GET route; a route's etag: false opts out", async () => {
    const app = new Webfw(import.meta.path, { etag: true });
    app.get("/a", () => "a");
    app.get("/b", () => "b", { etag: false });
    app.get("/const", () => ({ constant: true }), { const: true });
    const a = await app.request("/a");
    expect(a.headers.get("etag")).toMatch(/^W\//);
    expect(
      (await app.request("/a", { headers: { "if-none-match": a.headers.get("etag") as string } })).status,
    ).toBe(304);
    expect((await app.request("/b")).headers.get("etag")).toBeNull();
    const constant = await app.request("/const");
    const tag = constant.headers.get("etag") as string;
    expect(tag).toMatch(/^W\//);
    expect((await app.request("/const", { headers: { "if-none-match": tag } })).status).toBe(304);
  });
});
