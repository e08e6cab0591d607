import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BadRequestError, Headers, Webfw } from "../../src/index.ts";
import { QueryParams, Url } from "../../src/types.ts";
import { CLIENTS, type Client } from "../helpers/clients.ts";

function requestApp(): Webfw {
  const app = new Webfw(import.meta.path);
  app.get("/query", ({ queryParams }) => ({
    a: queryParams.get("a"),
    missing: queryParams.get("missing", "fallback"),
    tags: queryParams.getList("tag") ?? null,
    none: queryParams.getList("none") ?? null,
    has: queryParams.has("a"),
    keys: queryParams.keys(),
    dict: queryParams.toDict(),
    count: Object.keys(queryParams.toDict()).length,
  }));
  app.get("/headers", ({ headers }) => ({
    custom: headers.get("X-Custom"),
    lower: headers.get("x-custom"),
    absent: headers.get("x-absent"),
    absentDefault: headers.get("x-absent", "d"),
    has: headers.has("X-CUSTOM"),
  }));
  app.post("/body", ({ body }) => ({
    kind: typeof body === "string" ? "string" : "bytes",
    length: body.length,
  }));
  app.post("/json", (request) => {
    const value = request.json();
    return { value, type: Array.isArray(value) ? "list" : typeof value };
  });
  app.post("/json-caught", (request) => {
    try {
      request.json();
      return "parsed";
    } catch (error) {
      return [`caught ${(error as Error).name} ${error instanceof BadRequestError}`, 200];
    }
  });
  app.get("/url", ({ url, method, ipAddr, identity }) => ({
    path: url.path,
    scheme: url.scheme,
    host: url.host,
    query: url.query,
    method,
    ipAddr,
    identity,
  }));
  app.put("/empty", ({ body }) => ({ body }));
  app.get("/whole", (request) => ({
    pathParams: request.pathParams,
    formData: request.formData,
    files: Object.keys(request.files),
    globalDependencies: request.globalDependencies,
    routerDependencies: request.routerDependencies,
    args: request.args,
  }));
  app.post("/form", ({ formData }) => formData);
  return app;
}

for (const [kind, makeClient] of CLIENTS) {
  describe(`request (${kind})`, () => {
    let client: Client;
    beforeAll(async () => {
      client = await makeClient(requestApp());
    });
    afterAll(() => client.close());

    test("query parameters: get, default, getList, toDict", async () => {
      const response = await client.fetch("/query?a=1&tag=x&tag=y&a=2&e=");
      expect(await response.json()).toEqual({
        a: "2",
        missing: "fallback",
        tags: ["x", "y"],
        none: null,
        has: true,
        keys: ["a", "tag", "e"],
        dict: { a: ["1", "2"], tag: ["x", "y"], e: [""] },
        count: 3,
      });
    });

    test("headers are case-insensitive with defaults", async () => {
      const response = await client.fetch("/headers", { headers: { "X-Custom": "v1" } });
      expect(await response.json()).toEqual({
        custom: "v1",
        lower: "v1",
        absent: null,
        absentDefault: "d",
        has: true,
      });
    });

    test("UTF-8 body is a string, binary body is bytes", async () => {
      const text = await client.fetch("/body", { method: "POST", body: "héllo" });
      expect(await text.json()).toEqual({ kind: "string", length: 5 });
      const binary = await client.fetch("/body", {
        method: "POST",
        body: new Uint8Array([0xff, 0xfe, 0x00, 0x80]),
      });
      expect(await binary.json()).toEqual({ kind: "bytes", length: 4 });
    });

    test("empty body is an empty string", async () => {
      const response = await client.fetch("/empty", { method: "PUT" });
      expect(await response.json()).toEqual({ body: "" });
    });

    test("json(): objects and lists with types preserved", async () => {
      const doc = { n: null, i: 3, f: 1.5, b: true, s: "x", l: [1, [2]], o: { k: { v: false } } };
      const object = await client.fetch("/json", { method: "POST", body: JSON.stringify(doc) });
      expect(await object.json()).toEqual({ value: doc, type: "object" });
      const list = await client.fetch("/json", { method: "POST", body: "[1,2]" });
      expect(await list.json()).toEqual({ value: [1, 2], type: "list" });
    });

    test("json(): invalid JSON is a 400 when not caught", async () => {
      const response = await client.fetch("/json", { method: "POST", body: "{nope" });
      expect(response.status).toBe(400);
      expect(await response.text()).toStartWith("invalid JSON body");
    });

    test("json(): the error is a BadRequestError the handler can catch", async () => {
      const response = await client.fetch("/json-caught", { method: "POST", body: "[1," });
      expect(await response.text()).toBe("caught BadRequestError true");
    });

    test("json(): 128 levels parse, 129 are refused", async () => {
      const ok = await client.fetch("/json", { method: "POST", body: "[".repeat(128) + "]".repeat(128) });
      expect(ok.status).toBe(200);
      const deep = await client.fetch("/json", { method: "POST", body: "[".repeat(129) + "]".repeat(129) });
      expect(deep.status).toBe(400);
      expect(await deep.text()).toContain("deeper than 128");
      const hostile = await client.fetch("/json", { method: "POST", body: "[".repeat(1_000_000) });
      expect(hostile.status).toBe(400);
      const inString = await client.fetch("/json", {
        method: "POST",
        body: JSON.stringify({ s: "[".repeat(500) }),
      });
      expect(inString.status).toBe(200);
    });

    test("url, method, identity", async () => {
      const response = await client.fetch("/url?x=1&y=2");
      const body = await response.json();
      expect(body.path).toBe("/url");
      expect(body.scheme).toBe("http");
      expect(body.query).toBe("x=1&y=2");
      expect(body.method).toBe("GET");
      expect(body.identity).toBeNull();
      if (kind === "http") {
        expect(body.host).toMatch(/^127\.0\.0\.1:\d+$/);
        expect(body.ipAddr).toBe("127.0.0.1");
      } else expect(body.ipAddr).toBeNull();
    });

    test("every field has a sensible empty value", async () => {
      const response = await client.fetch("/whole");
      expect(await response.json()).toEqual({
        pathParams: {},
        formData: {},
        files: [],
        globalDependencies: {},
        routerDependencies: {},
        args: {},
      });
    });

    test("urlencoded form fields", async () => {
      const response = await client.fetch("/form", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "a=1&b=two+words&c=%C3%A9",
      });
      expect(await response.json()).toEqual({ a: "1", b: "two words", c: "é" });
    });
  });
}

describe("request value classes", () => {
  test("QueryParams", () => {
    const query = new QueryParams("a=1&a=2&b=x");
    expect(query.get("a")).toBe("2");
    expect(query.getList("a")).toEqual(["1", "2"]);
    expect(query.getList("z")).toBeUndefined();
    expect(query.toDict()).toEqual({ a: ["1", "2"], b: ["x"] });
    expect(new QueryParams({ k: ["1", "2"], j: "3" }).toString()).toBe("k=1&k=2&j=3");
  });

  test("Headers built from an object; set replaces, append adds", () => {
    const headers = new Headers({ "Content-Type": "text/plain" });
    expect(headers.get("content-type")).toBe("text/plain");
    headers.set("X-A", "1");
    headers.set("x-a", "2");
    headers.append("x-b", "1");
    headers.append("x-b", "2");
    expect(headers.toDict()).toEqual({ "content-type": "text/plain", "x-a": "2", "x-b": "1, 2" });
    headers.delete("X-A");
    expect(headers.has("x-a")).toBe(false);
    expect(() => headers.set("x-bad", "a\r\nInjected: yes")).toThrow();
  });

  test("Url.parse", () => {
    const url = Url.parse("https://example.com:8443/a/b%20c?x=1#frag");
    expect([url.scheme, url.host, url.path, url.query]).toEqual([
      "https",
      "example.com:8443",
      "/a/b%20c",
      "x=1",
    ]);
    expect(Url.parse("http://h").path).toBe("/");
  });
});
