/** The plain (string) form of a call and a reply (src/workers/wire.ts). */
import { describe, expect, test } from "bun:test";
import { Request } from "../../src/http/request.ts";
import { plainCall, plainReply, readPlainCall, readPlainReply } from "../../src/workers/wire.ts";

const request = (init?: RequestInit, params: Record<string, string> = {}) =>
  new Request(new globalThis.Request("http://localhost/p/1?x=2", init), params);

describe("plain calls", () => {
  test("round-trip the route, URL, method, path parameters, headers, address and id", () => {
    const r = request({ headers: { "x-a": "1: two", accept: "*/*" } }, { id: "1", name: "é é" });
    r.id = "req-1";
    r.ipAddr = "10.0.0.1";
    const text = plainCall(7, "GET /p/:id", "http://localhost/p/1?x=2", r);
    expect(text).not.toBeNull();
    const call = readPlainCall(text as string);
    expect(call).toMatchObject({
      id: 7,
      route: "GET /p/:id",
      url: "http://localhost/p/1?x=2",
      method: "GET",
      pathParams: { id: "1", name: "é é" },
      ipAddr: "10.0.0.1",
      requestId: "req-1",
      session: null,
      state: null,
      form: null,
      identityClaims: null,
    });
    expect(call.headers).toEqual([
      ["accept", "*/*"],
      ["x-a", "1: two"],
    ]);
    expect(call.body.length).toBe(0);
  });

  test("no address reads back as null; no parameters and no headers are fine", () => {
    const r = request();
    r.id = "i";
    r.ipAddr = null;
    const call = readPlainCall(plainCall(1, "GET /", "http://localhost/", r) as string);
    expect([call.ipAddr, call.pathParams, call.headers]).toEqual([null, {}, []]);
  });

  test("anything that is not text takes the object form", () => {
    const cases: ((r: Request) => void)[] = [
      (r) => {
        r.bodyBytes = new Uint8Array([1]);
      },
      (r) => {
        r.parsedBody = { a: 1 };
      },
      (r) => {
        r.args = { a: 1 };
      },
      (r) => {
        r.state.k = 1;
      },
      (r) => {
        r.pathParams = { name: "a\nb" };
      },
      (r) => {
        r.id = "a\nb";
      },
    ];
    for (const change of cases) {
      const r = request();
      r.ipAddr = null;
      change(r);
      expect(plainCall(1, "GET /", "http://localhost/", r)).toBeNull();
    }
  });
});

test("a plain reply carries the id and any text, line breaks included", () => {
  expect(readPlainReply(plainReply(12, "a\nb\n"))).toEqual({ id: 12, text: "a\nb\n" });
  expect(readPlainReply(plainReply(3, ""))).toEqual({ id: 3, text: "" });
});
