import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { MAX_COOKIE_BYTES, parseCookies, serializeCookie } from "../../src/http/cookies.ts";
import { Response, type ServerHandle, Webfw } from "../../src/index.ts";

describe("serializeCookie", () => {
  test("formats every attribute in a fixed order", () => {
    const cookie = serializeCookie("id", "a b;c", {
      maxAge: 3600.9,
      expires: new Date(Date.UTC(2030, 0, 2, 3, 4, 5)),
      domain: "example.com",
      path: "/app",
      secure: true,
      httpOnly: true,
      sameSite: "strict",
      partitioned: true,
    });
    expect(cookie).toBe(
      "id=a%20b%3Bc; Max-Age=3600; Expires=Wed, 02 Jan 2030 03:04:05 GMT; Domain=example.com; Path=/app; Secure; HttpOnly; SameSite=Strict; Partitioned",
    );
  });

  test("no options gives only name=value; SameSite is normalised from any case", () => {
    expect(serializeCookie("a", "1")).toBe("a=1");
    expect(serializeCookie("a", "1", { sameSite: "LAX" as "Lax" })).toBe("a=1; SameSite=Lax");
  });

  test("values are percent-encoded so CR/LF and ';' cannot break out", () => {
    expect(serializeCookie("a", "x\r\nSet-Cookie: evil=1; Path=/")).toBe(
      "a=x%0D%0ASet-Cookie%3A%20evil%3D1%3B%20Path%3D%2F",
    );
    expect(serializeCookie("a", "héllo ☃")).toBe("a=h%C3%A9llo%20%E2%98%83");
  });

  test("names, attributes and SameSite that could inject are TypeErrors", () => {
    const bad: [string, Parameters<typeof serializeCookie>[2]][] = [
      ["a\r\nx", {}],
      ["a;b", {}],
      ["a b", {}],
      ["", {}],
      ["a=b", {}],
      ["ok", { path: "/\r\nX-Evil: 1" }],
      ["ok", { path: "/a;Domain=evil.example" }],
      ["ok", { path: "relative" }],
      ["ok", { domain: "evil.example; Secure" }],
      ["ok", { domain: "a\nb" }],
      ["ok", { domain: "" }],
      ["ok", { sameSite: "Lax; Domain=evil" as "Lax" }],
      ["ok", { sameSite: "sometimes" as "Lax" }],
      ["ok", { maxAge: Number.NaN }],
      ["ok", { maxAge: Number.POSITIVE_INFINITY }],
      ["ok", { expires: new Date("not a date") }],
    ];
    for (const [name, options] of bad) expect(() => serializeCookie(name, "v", options)).toThrow(TypeError);
  });

  test("SameSite=None and Partitioned require Secure", () => {
    expect(() => serializeCookie("a", "1", { sameSite: "None" })).toThrow(/requires secure/);
    expect(() => serializeCookie("a", "1", { partitioned: true })).toThrow(/requires secure/);
    expect(serializeCookie("a", "1", { sameSite: "None", secure: true })).toBe("a=1; Secure; SameSite=None");
  });

  test("cookie prefixes: __Secure- and __Host- imply Secure; __Host- refuses Domain and other paths", () => {
    expect(serializeCookie("__Secure-a", "1")).toBe("__Secure-a=1; Secure");
    expect(serializeCookie("__Host-a", "1")).toBe("__Host-a=1; Path=/; Secure");
    expect(() => serializeCookie("__Host-a", "1", { domain: "example.com" })).toThrow(/__Host-/);
    expect(() => serializeCookie("__Host-a", "1", { path: "/x" })).toThrow(/__Host-/);
  });

  test("a cookie over 4096 bytes is refused with its size", () => {
    // Name and value together: "a" + 4095 bytes is the largest allowed.
    expect(serializeCookie("a", "x".repeat(MAX_COOKIE_BYTES - 1)).length).toBe(MAX_COOKIE_BYTES + 1);
    expect(() => serializeCookie("a", "x".repeat(MAX_COOKIE_BYTES))).toThrow(/4097 bytes/);
    // Percent-encoding counts: 1366 × "é" is 8196 encoded bytes.
    expect(() => serializeCookie("a", "é".repeat(1366))).toThrow(/over 4096 bytes/);
  });
});

describe("parseCookies", () => {
  test("well-formed pairs, spaces, quotes and percent-escapes", () => {
    expect(parseCookies('a=1; b = two ; c="quoted"; d=caf%C3%A9')).toEqual({
      a: "1",
      b: "two",
      c: "quoted",
      d: "café",
    });
  });

  test("malformed input is skipped or kept raw, never an error", () => {
    const header = "; ;;a=1; novalue; =orphan; bad=%E0%A4%A; e=; f==x; a=second; x=y=z;  ";
    expect(parseCookies(header)).toEqual({ a: "1", bad: "%E0%A4%A", e: "", f: "=x", x: "y=z" });
    expect(parseCookies("")).toEqual({});
    expect(parseCookies(null)).toEqual({});
    expect(parseCookies("garbage without equals")).toEqual({});
  });

  test("the first occurrence of a name wins", () => {
    expect(parseCookies("id=specific; id=general")).toEqual({ id: "specific" });
  });

  test("a cookie named __proto__ is a plain entry and leaves the prototype alone", () => {
    const cookies = parseCookies("__proto__=x; constructor=y");
    expect(Object.getPrototypeOf(cookies)).toBe(Object.prototype);
    expect(Object.keys(cookies).sort()).toEqual(["__proto__", "constructor"]);
    expect(Object.getOwnPropertyDescriptor(cookies, "__proto__")?.value).toBe("x");
    expect(cookies.constructor as unknown).toBe("y");
  });
});

describe("cookies over HTTP", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    const app = new Webfw(import.meta.path);
    app.get("/cookies", (request) => request.cookies);
    app.get("/set", () => {
      const response = new Response(200, {}, "set");
      response.setCookie("a", "1");
      response.setCookie("b", "two words", { maxAge: 60, httpOnly: true, secure: true, sameSite: "None" });
      response.setCookie("c", "3", { path: "/docs", domain: "localhost", partitioned: true, secure: true });
      response.deleteCookie("old", { path: "/x" });
      return response;
    });
    app.get("/inject-path", () => new Response(200).setCookie("a", "1", { path: "/\r\nX-Evil: 1" }));
    app.get("/inject-name", () => new Response(200).setCookie("a\r\nX-Evil: 1", "v"));
    app.get("/inject-samesite", () =>
      new Response(200).setCookie("a", "1", { sameSite: "Lax\r\nX-Evil: 1" as "Lax" }),
    );
    app.get("/inject-value", () => new Response(200).setCookie("a", "v\r\nX-Evil: 1"));
    app.get("/after", () => "body");
    app.afterRequest("/after", (response) => response.setCookie("seen", "yes"));
    server = await app.start({ port: 0, host: "127.0.0.1" });
  });
  afterAll(() => server.stop(true));

  test("one Set-Cookie header per cookie, with attributes; deleteCookie expires it", async () => {
    const response = await fetch(`${server.url}/set`);
    expect(response.status).toBe(200);
    expect(response.headers.getSetCookie()).toEqual([
      "a=1; Path=/",
      "b=two%20words; Max-Age=60; Path=/; Secure; HttpOnly; SameSite=None",
      "c=3; Domain=localhost; Path=/docs; Secure; Partitioned",
      "old=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/x",
    ]);
  });

  test("an after-middleware can set cookies on the handler's response", async () => {
    const response = await fetch(`${server.url}/after`);
    expect(await response.text()).toBe("body");
    expect(response.headers.getSetCookie()).toEqual(["seen=yes; Path=/"]);
  });

  test("injection through an attribute, the name or SameSite is a 500 and no header is injected", async () => {
    for (const path of ["/inject-path", "/inject-name", "/inject-samesite"]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(500);
      expect(await response.text()).toBe("Internal Server Error");
      expect(response.headers.get("x-evil")).toBeNull();
      expect(response.headers.getSetCookie()).toEqual([]);
    }
  });

  test("CR/LF in a value is percent-encoded, not injected", async () => {
    const response = await fetch(`${server.url}/inject-value`);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-evil")).toBeNull();
    expect(response.headers.getSetCookie()).toEqual(["a=v%0D%0AX-Evil%3A%201; Path=/"]);
  });

  test("request.cookies parses a malformed Cookie header leniently", async () => {
    const response = await fetch(`${server.url}/cookies`, {
      headers: { cookie: 'a=1;;b;=c; d="q"; e=%ZZ; f=caf%C3%A9; a=2' },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ a: "1", d: "q", e: "%ZZ", f: "café" });
  });

  test("no Cookie header gives an empty object", async () => {
    const response = await fetch(`${server.url}/cookies`);
    expect(await response.json()).toEqual({});
  });

  test("two Cookie header lines are both read", async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, "127.0.0.1");
      let data = "";
      socket.on("data", (chunk) => {
        data += chunk;
      });
      socket.on("error", reject);
      socket.on("close", () => resolve(data));
      socket.write(
        "GET /cookies HTTP/1.1\r\nHost: x\r\nCookie: a=1\r\nCookie: b=2\r\nConnection: close\r\n\r\n",
      );
    });
    expect(raw.startsWith("HTTP/1.1 200")).toBe(true);
    expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))).toEqual({ a: "1", b: "2" });
  });
});
