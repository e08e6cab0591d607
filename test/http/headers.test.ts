/**
 * The webfw `Headers` in its two forms (src/http/headers.ts): a response's plain form must answer
 * exactly as the Web `Headers` does, and turn into it wherever the plain form cannot hold a value.
 */
import { describe, expect, test } from "bun:test";
import { Headers } from "../../src/http/headers.ts";
import { Response } from "../../src/response/response.ts";

/** The same operations on a plain-form `Headers` and on one over a Web `Headers`. */
function both(init: Record<string, string>, run: (headers: Headers) => unknown): [unknown, unknown] {
  const plain = new Headers(init);
  const native = new Headers(new globalThis.Headers(init));
  return [run(plain), run(native)];
}

describe("the plain form answers as the Web Headers", () => {
  const cases: [string, (h: Headers) => unknown][] = [
    [
      "get, any case",
      (h) => [h.get("Content-Type"), h.get("x-a"), h.get("X-MISSING"), h.get("missing", "d")],
    ],
    ["has", (h) => [h.has("X-A"), h.has("x-b")]],
    [
      "set replaces, append joins",
      (h) => {
        h.set("X-A", "2");
        h.append("x-b", "1");
        h.append("X-B", "2");
        return [h.get("x-a"), h.get("x-b"), h.getAll("x-b")];
      },
    ],
    [
      "delete",
      (h) => {
        h.delete("X-A");
        h.delete("x-none");
        return [h.has("x-a"), h.keys()];
      },
    ],
    ["keys, toDict and iteration: lower-cased, sorted", (h) => [h.keys(), h.toDict(), [...h]]],
    [
      "names the prototype has are ordinary names",
      (h) => {
        const before = [h.get("constructor"), h.has("toString"), h.has("__proto__")];
        h.set("constructor", "c");
        h.append("__proto__", "p");
        return [...before, h.get("constructor"), h.get("__proto__"), h.toDict()];
      },
    ],
    [
      "values the Web Headers trims or refuses",
      (h) => {
        h.set("x-t", "  padded\t");
        h.set("x-u", "caf\u00e9");
        return [h.get("x-t"), h.get("x-u")];
      },
    ],
  ];
  for (const [name, run] of cases) {
    test(name, () => {
      const [plain, native] = both({ "Content-Type": "text/plain", "X-A": "1" }, run);
      expect(plain).toEqual(native);
    });
  }

  test("an invalid name or a CR/LF value throws where it is set, with the Web Headers' error", () => {
    for (const bad of [
      (h: Headers) => h.set("a b", "1"),
      (h: Headers) => h.set("x", "a\r\nb: c"),
      (h: Headers) => h.append("x", "a\nb"),
      (h: Headers) => h.set("", "1"),
      (h: Headers) => h.get("a b"),
      (h: Headers) => h.has("a:b"),
    ]) {
      let plainError: unknown = null;
      let nativeError: unknown = null;
      try {
        bad(new Headers({ x: "1" }));
      } catch (error) {
        plainError = error;
      }
      try {
        bad(new Headers(new globalThis.Headers({ x: "1" })));
      } catch (error) {
        nativeError = error;
      }
      expect(plainError).toBeInstanceOf(TypeError);
      expect(String(plainError)).toBe(String(nativeError));
    }
  });

  test("Set-Cookie stays separate lines", () => {
    const headers = new Headers({ "x-a": "1" });
    headers.append("Set-Cookie", "a=1");
    headers.append("set-cookie", "b=2");
    expect(headers.getAll("set-cookie")).toEqual(["a=1", "b=2"]);
    expect(headers.raw.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(headers.get("x-a")).toBe("1");
  });

  test("raw holds every value, and changes made through it are seen", () => {
    const headers = new Headers({ "X-A": "1" });
    headers.append("x-b", "2");
    const raw = headers.raw;
    expect([...raw.entries()]).toEqual([
      ["x-a", "1"],
      ["x-b", "2"],
    ]);
    raw.set("x-c", "3");
    expect(headers.get("x-c")).toBe("3");
    expect(headers.raw).toBe(raw);
  });

  test("a copy is independent of its source", () => {
    const source = new Headers({ "x-a": "1" });
    const copy = new Headers(source);
    copy.set("x-a", "2");
    expect([source.get("x-a"), copy.get("x-a")]).toEqual(["1", "2"]);
  });
});

describe("a webfw Response sends what its headers hold", () => {
  test("headers set on the plain form reach the Web response; a text body keeps its type", async () => {
    const response = new Response(200, {}, "hi");
    response.headers.set("X-After", "1");
    response.headers.append("vary", "Origin");
    response.headers.append("Vary", "Cookie");
    const web = response.toWeb();
    expect(web.headers.get("x-after")).toBe("1");
    expect(web.headers.get("vary")).toBe("Origin, Cookie");
    expect(await web.text()).toBe("hi");
  });

  test("the handler's header object, any case, with its type", async () => {
    const web = new Response(201, { "Content-Type": "text/html", "X-A": "1" }, "<p>").toWeb();
    expect([web.status, web.headers.get("content-type"), web.headers.get("x-a")]).toEqual([
      201,
      "text/html",
      "1",
    ]);
  });

  test("bytes without a type get application/octet-stream; no body on 204", async () => {
    const bytes = new Response(200, { "x-a": "1" }, new Uint8Array([1, 2])).toWeb();
    expect(bytes.headers.get("content-type")).toBe("application/octet-stream");
    const empty = new Response(204, { "x-a": "1" }, "ignored").toWeb();
    expect([empty.status, empty.headers.get("x-a"), await empty.text()]).toEqual([204, "1", ""]);
  });

  test("a cookie moves the headers to the Web form; both reach the response", () => {
    const response = new Response(200, {}, "hi");
    response.headers.set("x-a", "1");
    response.setCookie("s", "v");
    response.setCookie("t", "w");
    const web = response.toWeb();
    expect(web.headers.get("x-a")).toBe("1");
    expect(web.headers.getSetCookie()).toEqual(["s=v; Path=/", "t=w; Path=/"]);
  });

  test("an invalid header in the constructor still throws there", () => {
    expect(() => new Response(200, { "a b": "1" })).toThrow(TypeError);
    expect(() => new Response(200, { x: "a\r\nb" })).toThrow(TypeError);
  });
});
