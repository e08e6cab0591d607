/**
 * Responses are converted once (issue #21): after-middlewares get a webfw `Response` made
 * straight from the handler's value (no Web response built and read back), and the one
 * conversion to a Web response happens after them; the same for error responses.
 */
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { HttpError, html, json, Response, Webfw } from "../../src/index.ts";
import type { ServerHandle } from "../../src/launch/server.ts";

// Counts Web responses made in JavaScript (`new Response(...)`) while a request is served.
const WebResponse = globalThis.Response;
let made = 0;
class CountingResponse extends WebResponse {
  constructor(body?: BodyInit | null, init?: ResponseInit) {
    super(body, init);
    made++;
  }
}

describe("after-middlewares get the handler's value as a webfw Response, converted once", () => {
  let server: ServerHandle;
  const seen: { path: string; description: string | Uint8Array; type: string | null; stream: boolean }[] = [];
  beforeAll(async () => {
    const app = new Webfw(import.meta.path, { openapi: false });
    app.afterRequest((response, request) => {
      seen.push({
        path: request.url.path,
        description: response.description,
        type: response.headers.get("content-type"),
        stream: response.stream !== null,
      });
      response.headers.set("x-after", "1");
    });
    app.get("/text", () => "hello");
    app.get("/object", () => ({ a: 1 }));
    app.get("/pair", () => [{ created: true }, 201]);
    app.get("/html", () => html("<b>hi</b>"));
    app.get("/json", () => json({ b: 2 }, 202));
    app.get("/dict", () => ({ statusCode: 418, description: "teapot", type: "text" }));
    app.get("/bytes", () => new Uint8Array([1, 2, 3]));
    app.get("/empty", () => null);
    app.get(
      "/stream",
      () =>
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode("s"));
            controller.close();
          },
        }),
    );
    app.get(
      "/web",
      () => new globalThis.Response("as given", { headers: { "content-type": "text/x-mine" } }),
    );
    app.get("/boom", () => {
      throw new HttpError(409, "conflict here");
    });
    app.get("/crash", () => {
      throw new Error("secret");
    });
    server = await app.start({ port: 0, handleSignals: false, accessLog: false });
  });
  afterAll(() => server.stop());

  const cases: [string, number, string, string | null, string][] = [
    ["/text", 200, "hello", "text/plain;charset=utf-8", "hello"],
    ["/object", 200, '{"a":1}', "application/json;charset=utf-8", '{"a":1}'],
    ["/pair", 201, '{"created":true}', "application/json;charset=utf-8", '{"created":true}'],
    ["/html", 200, "<b>hi</b>", "text/html;charset=utf-8", "<b>hi</b>"],
    ["/json", 202, '{"b":2}', "application/json;charset=utf-8", '{"b":2}'],
    ["/dict", 418, "teapot", "text/plain;charset=utf-8", "teapot"],
    ["/boom", 409, "conflict here", "text/plain;charset=utf-8", "conflict here"],
    ["/crash", 500, "Internal Server Error", "text/plain;charset=utf-8", "Internal Server Error"],
  ];
  for (const [path, status, body, type, description] of cases) {
    test(`${path}: the middleware reads the body as text; one Web response is made`, async () => {
      const fromWeb = spyOn(Response, "fromWeb");
      globalThis.Response = CountingResponse as typeof globalThis.Response;
      made = 0;
      let answer: globalThis.Response;
      try {
        answer = await fetch(`${server.url}${path}`);
      } finally {
        globalThis.Response = WebResponse;
      }
      expect(fromWeb).not.toHaveBeenCalled();
      fromWeb.mockRestore();
      expect(made).toBe(1);
      expect(answer.status).toBe(status);
      expect(answer.headers.get("x-after")).toBe("1");
      expect((answer.headers.get("content-type") ?? "").replace("; ", ";")).toBe(type ?? "");
      expect(await answer.text()).toBe(body);
      const last = seen.at(-1);
      expect(last?.path).toBe(path);
      expect(last?.description).toBe(description);
      expect(last?.stream).toBe(false);
    });
  }

  test("bytes and an empty answer: bytes in description, 204 without a body", async () => {
    const bytes = await fetch(`${server.url}/bytes`);
    expect(new Uint8Array(await bytes.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]));
    expect(seen.at(-1)?.description).toEqual(new Uint8Array([1, 2, 3]));
    const empty = await fetch(`${server.url}/empty`);
    expect(empty.status).toBe(204);
    expect(await empty.text()).toBe("");
  });

  test("streams and a Web response the handler made pass through unread", async () => {
    const stream = await fetch(`${server.url}/stream`);
    expect(await stream.text()).toBe("s");
    expect(seen.at(-1)).toMatchObject({ path: "/stream", description: "", stream: true });
    const web = await fetch(`${server.url}/web`);
    expect(await web.text()).toBe("as given");
    expect(web.headers.get("content-type")).toBe("text/x-mine");
    expect(web.headers.get("x-after")).toBe("1");
    expect(seen.at(-1)).toMatchObject({ path: "/web", description: "", stream: true });
  });
});
