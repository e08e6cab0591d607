import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { html, json, Response, serveFile, serveHtml, Webfw } from "../../src/index.ts";
import { sse } from "../../src/stream/sse.ts";
import { CLIENTS, type Client } from "../helpers/clients.ts";

const FIXTURES = join(import.meta.dir, "..", "fixtures");

function responseApp(): Webfw {
  const app = new Webfw(import.meta.path);
  app.get("/string", () => "plain");
  app.get("/object", () => ({ a: 1, nested: { b: [true, null] } }));
  app.get("/list", () => [1, "two", { three: 3 }]);
  app.get("/pair", () => ["made", 201]);
  app.get("/pair-json", () => [{ id: 1 }, 202]);
  app.get("/not-pair", () => ["a", 1000]);
  app.get("/forced-json", () => json(["made", 201]));
  app.get("/json-string", () => json("text", 201));
  app.get("/bytes", () => new Uint8Array([0, 1, 2, 255]));
  app.get("/buffer", () => new Uint8Array([9, 8]).buffer);
  app.get("/webfw-response", () => {
    const response = new Response(418, { "X-Kind": "teapot" }, "short and stout");
    response.setCookie("a", "1");
    response.setCookie("b", "two words", { httpOnly: true, maxAge: 60 });
    return response;
  });
  app.get(
    "/webfw-binary",
    () => new Response(200, { "content-type": "application/octet-stream" }, new Uint8Array([7])),
  );
  app.get(
    "/web-response",
    () => new globalThis.Response("raw web", { status: 299, headers: { "x-web": "1" } }),
  );
  app.get("/dict", () => ({ statusCode: 201, description: "dict body", headers: { "x-dict": "yes" } }));
  app.get("/dict-json", () => ({ statusCode: 200, description: '{"k":1}', type: "json" }));
  app.get("/dict-html", () => ({ statusCode: 200, description: "<p>x</p>", type: "html" }));
  app.get("/dict-binary", () => ({ statusCode: 200, description: new Uint8Array([1, 2]), type: "binary" }));
  app.get("/not-dict", () => ({ statusCode: 200, description: "x", extra: true }));
  app.get("/html", () => html("<h1>hi</h1>"));
  app.get("/serve-html", () => serveHtml(join(FIXTURES, "page.html")));
  app.get("/serve-file", () => serveFile(join(FIXTURES, "hello.txt"), { fileName: "greeting.txt" }));
  app.get("/bun-file", () => Bun.file(join(FIXTURES, "hello.txt")));
  app.get(
    "/stream",
    () =>
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("streamed"));
          controller.close();
        },
      }),
  );
  app.get("/generator", async function* () {
    yield "a";
    yield "b";
  });
  app.get("/sse", () =>
    sse(
      (async function* () {
        yield { data: "one", event: "tick", id: "1" };
        yield "two";
      })(),
    ),
  );
  app.get("/undefined", () => undefined);
  app.get("/null", () => null);
  app.get("/number", () => 42);
  app.get("/async", async () => ({ later: true }));
  return app;
}

for (const [kind, makeClient] of CLIENTS) {
  describe(`return values (${kind})`, () => {
    let client: Client;
    beforeAll(async () => {
      client = await makeClient(responseApp());
    });
    afterAll(() => client.close());

    const get = (path: string) => client.fetch(path);

    test("string → 200 text/plain", async () => {
      const response = await get("/string");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/plain;charset=utf-8");
      expect(await response.text()).toBe("plain");
    });

    test("object and array → JSON", async () => {
      const object = await get("/object");
      expect(object.headers.get("content-type")).toBe("application/json;charset=utf-8");
      expect(await object.json()).toEqual({ a: 1, nested: { b: [true, null] } });
      const list = await get("/list");
      expect(await list.json()).toEqual([1, "two", { three: 3 }]);
    });

    test("[body, status] pairs", async () => {
      const pair = await get("/pair");
      expect([pair.status, await pair.text()]).toEqual([201, "made"]);
      const pairJson = await get("/pair-json");
      expect(pairJson.status).toBe(202);
      expect(await pairJson.json()).toEqual({ id: 1 });
      const notPair = await get("/not-pair");
      expect([notPair.status, await notPair.json()]).toEqual([200, ["a", 1000]]);
    });

    test("json() forces JSON", async () => {
      const forced = await get("/forced-json");
      expect([forced.status, await forced.json()]).toEqual([200, ["made", 201]]);
      const text = await get("/json-string");
      expect(text.status).toBe(201);
      expect(text.headers.get("content-type")).toBe("application/json;charset=utf-8");
      expect(await text.json()).toBe("text");
    });

    test("bytes → application/octet-stream", async () => {
      const bytes = await get("/bytes");
      expect(bytes.headers.get("content-type")).toBe("application/octet-stream");
      expect([...new Uint8Array(await bytes.arrayBuffer())]).toEqual([0, 1, 2, 255]);
      const buffer = await get("/buffer");
      expect([...new Uint8Array(await buffer.arrayBuffer())]).toEqual([9, 8]);
    });

    test("webfw Response with headers and cookies", async () => {
      const response = await get("/webfw-response");
      expect(response.status).toBe(418);
      expect(response.headers.get("x-kind")).toBe("teapot");
      expect(response.headers.get("content-type")).toBe("text/plain;charset=utf-8");
      expect(response.headers.getSetCookie()).toEqual([
        "a=1; Path=/",
        "b=two%20words; Max-Age=60; Path=/; HttpOnly",
      ]);
      expect(await response.text()).toBe("short and stout");
      const binary = await get("/webfw-binary");
      expect([...new Uint8Array(await binary.arrayBuffer())]).toEqual([7]);
    });

    test("a Web Response is sent untouched", async () => {
      const response = await get("/web-response");
      expect([response.status, response.headers.get("x-web"), await response.text()]).toEqual([
        299,
        "1",
        "raw web",
      ]);
    });

    test("dictionary response shape", async () => {
      const dict = await get("/dict");
      expect([dict.status, dict.headers.get("x-dict"), await dict.text()]).toEqual([201, "yes", "dict body"]);
      expect(dict.headers.get("content-type")).toBe("text/plain;charset=utf-8");
      const asJson = await get("/dict-json");
      expect(asJson.headers.get("content-type")).toBe("application/json;charset=utf-8");
      expect(await asJson.json()).toEqual({ k: 1 });
      expect((await get("/dict-html")).headers.get("content-type")).toBe("text/html; charset=utf-8");
      const binary = await get("/dict-binary");
      expect(binary.headers.get("content-type")).toBe("application/octet-stream");
      expect([...new Uint8Array(await binary.arrayBuffer())]).toEqual([1, 2]);
      const other = await get("/not-dict");
      expect(await other.json()).toEqual({ statusCode: 200, description: "x", extra: true });
    });

    test("html(), serveHtml(), serveFile(), Bun.file", async () => {
      const page = await get("/html");
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await page.text()).toBe("<h1>hi</h1>");
      const file = await get("/serve-html");
      expect(file.headers.get("content-type")).toStartWith("text/html");
      expect(await file.text()).toBe("<h1>page</h1>\n");
      const download = await get("/serve-file");
      expect(download.headers.get("content-disposition")).toContain('attachment; filename="greeting.txt"');
      expect(download.headers.get("content-type")).toStartWith("text/plain");
      expect(await download.text()).toBe("hello file\n");
      const bunFile = await get("/bun-file");
      expect(await bunFile.text()).toBe("hello file\n");
    });

    test("streams and async generators", async () => {
      expect(await (await get("/stream")).text()).toBe("streamed");
      expect(await (await get("/generator")).text()).toBe("ab");
    });

    test("sse()", async () => {
      const response = await get("/sse");
      expect(response.headers.get("content-type")).toBe("text/event-stream");
      const body = await response.text();
      expect(body).toContain("event: tick\nid: 1\ndata: one\n\n");
      expect(body).toContain("data: two\n\n");
    });

    test("undefined and null → 204", async () => {
      for (const path of ["/undefined", "/null"]) {
        const response = await get(path);
        expect(response.status).toBe(204);
        expect(await response.text()).toBe("");
      }
    });

    test("other values → JSON; async handlers", async () => {
      expect(await (await get("/number")).json()).toBe(42);
      expect(await (await get("/async")).json()).toEqual({ later: true });
    });
  });
}

describe("a webfw Response keeps the handler's header object until something reads it", () => {
  function headerApp(): Webfw {
    const app = new Webfw(import.meta.path, { openapi: false });
    app.get("/dict", () => new Response(201, { "X-One": "1", "x-two": "2" }, "made"));
    app.get("/typed", () => new Response(200, { "Content-Type": "application/xml" }, "<a/>"));
    app.get("/bytes", () => new Response(200, { "x-kind": "raw" }, new Uint8Array([1, 2])));
    app.get("/empty", () => new Response(204, { "x-gone": "yes" }));
    app.get("/number", () => new Response(200, { "x-count": 5 as unknown as string }, "n"));
    app.get("/read-then-set", () => {
      const response = new Response(200, { "x-a": "1" }, "rs");
      response.headers.set("x-b", response.headers.get("x-a") ?? "");
      return response;
    });
    app.get("/bad-value", () => new Response(200, { "x-bad": "a\r\nx-injected: 1" }, "never"));
    app.get("/bad-name", () => new Response(200, { "bad name": "x" }, "never"));
    return app;
  }
  const after = new Webfw(import.meta.path, { openapi: false });
  after.afterRequest((response) => {
    response.headers.set("x-after", response.headers.get("x-one") ?? "none");
  });
  after.get("/dict", () => new Response(201, { "X-One": "1" }, "made"));

  let server: Awaited<ReturnType<Webfw["start"]>>;
  let afterServer: Awaited<ReturnType<Webfw["start"]>>;
  beforeAll(async () => {
    server = await headerApp().start({ port: 0, host: "127.0.0.1", accessLog: false });
    afterServer = await after.start({ port: 0, host: "127.0.0.1", accessLog: false });
  });
  afterAll(async () => {
    await server.stop(true);
    await afterServer.stop(true);
  });
  const get = (path: string, port = server.port) => fetch(`http://127.0.0.1:${port}${path}`);

  test("its headers, status and body reach the client, with a content type added", async () => {
    const response = await get("/dict");
    expect(response.status).toBe(201);
    expect(response.headers.get("x-one")).toBe("1");
    expect(response.headers.get("x-two")).toBe("2");
    expect(response.headers.get("content-type")).toBe("text/plain;charset=utf-8");
    expect(await response.text()).toBe("made");
  });

  test("a content type given in any case is kept, never doubled", async () => {
    const response = await get("/typed");
    expect(response.headers.get("content-type")).toBe("application/xml");
    expect(await response.text()).toBe("<a/>");
    const bytes = await get("/bytes");
    expect(bytes.headers.get("content-type")).toBe("application/octet-stream");
    expect(new Uint8Array(await bytes.arrayBuffer())).toEqual(new Uint8Array([1, 2]));
  });

  test("no body and no content type on 204; numbers become text", async () => {
    const empty = await get("/empty");
    expect([empty.status, empty.headers.get("x-gone"), empty.headers.get("content-type")]).toEqual([
      204,
      "yes",
      null,
    ]);
    expect((await get("/number")).headers.get("x-count")).toBe("5");
  });

  test("reading or changing the headers in the handler or an after-middleware works as before", async () => {
    const response = await get("/read-then-set");
    expect([response.headers.get("x-a"), response.headers.get("x-b")]).toEqual(["1", "1"]);
    const changed = await get("/dict", afterServer.port);
    expect(changed.headers.get("x-after")).toBe("1");
  });

  test("a bad header is refused where the handler makes it (500, nothing injected)", async () => {
    for (const path of ["/bad-value", "/bad-name"]) {
      const response = await get(path);
      expect(response.status).toBe(500);
      expect(response.headers.get("x-injected")).toBeNull();
      expect(await response.text()).not.toContain("never");
    }
    expect(() => new Response(200, { "x-bad": "a\nb" })).toThrow(TypeError);
    expect(() => new Response(200, { "bad name": "x" })).toThrow(TypeError);
  });
});
