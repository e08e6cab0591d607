import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  commitSession,
  Session,
  type SessionOptions,
  SessionTooLargeError,
} from "../../src/entries/sessions.ts";
import { HttpError, type Request, Response, type ServerHandle, Webfw } from "../../src/index.ts";
import { SessionCodec } from "../../src/sessions/codec.ts";

const KEY_A = "first-secret-key-of-at-least-32-bytes";
const KEY_B = "other-secret-key-of-at-least-32-bytes";

/** An app exposing the session through a few routes. */
function sessionApp(options: SessionOptions): Webfw {
  const app = new Webfw(import.meta.path);
  app.sessions(options);
  app.get("/login/:user", (request) => {
    request.session!.set("user", request.pathParams.user);
    return "logged in";
  });
  app.get("/me", (request) => ({
    user: request.session!.get("user") ?? null,
    isNew: request.session!.isNew,
  }));
  app.get("/count", (request) => {
    const session = request.session!;
    session.set("count", session.get("count", 0) + 1);
    return String(session.get("count"));
  });
  app.get("/untouched", () => "nothing");
  app.get("/logout", (request) => {
    request.session!.clear();
    return "bye";
  });
  app.get("/big", (request) => {
    request.session!.set("blob", "x".repeat(5000));
    return "unreachable";
  });
  app.get("/fail", (request) => {
    request.session!.set("flash", "failed");
    throw new HttpError(400, "bad thing");
  });
  app.get("/unicode", (request) => {
    request.session!.set("name", "Zoë ☃ \u{1F600}");
    request.session!.set("nested", { list: [1, "two", null], flag: true });
    return "ok";
  });
  app.get("/dump", (request) => request.session!.toJSON());
  return app;
}

/** The `name=value` part of the Set-Cookie for `name`, or null. */
function cookieFrom(response: globalThis.Response, name = "session"): string | null {
  const line = response.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
  return line ? (line.split(";")[0] as string) : null;
}

function cookieValue(cookie: string): string {
  return cookie.slice(cookie.indexOf("=") + 1);
}

/** Replaces the character at `index` with a different base64url character. */
function flip(text: string, index: number): string {
  const ch = text[index] === "A" ? "B" : "A";
  return text.slice(0, index) + ch + text.slice(index + 1);
}

describe("sessions() validates its options", () => {
  const app = () => new Webfw(import.meta.path);
  test("a secret shorter than 32 bytes is an error at configure time", () => {
    expect(() => app().sessions({ secretKey: "short" })).toThrow(/at least 32/);
    expect(() => app().sessions({ secretKey: "x".repeat(31) })).toThrow(/31 bytes/);
    expect(() => app().sessions({ secretKey: [KEY_A, "tiny"] })).toThrow(/#2/);
    expect(() => app().sessions({ secretKey: [] })).toThrow(/empty/);
    expect(() => app().sessions({ secretKey: new Uint8Array(16) })).toThrow(/16 bytes/);
    expect(() => app().sessions({ secretKey: new Uint8Array(32) })).not.toThrow();
    // UTF-8 bytes count, not characters: 11 × "€" is 33 bytes.
    expect(() => app().sessions({ secretKey: "€".repeat(11) })).not.toThrow();
  });

  test("bad cookie name, maxAge and attributes fail at configure time", () => {
    expect(() => app().sessions({ secretKey: KEY_A, cookieName: "bad name" })).toThrow(TypeError);
    expect(() => app().sessions({ secretKey: KEY_A, maxAge: 0 })).toThrow(/maxAge/);
    expect(() => app().sessions({ secretKey: KEY_A, maxAge: 1.5 })).toThrow(/maxAge/);
    expect(() => app().sessions({ secretKey: KEY_A, sameSite: "None" })).toThrow(/secure/);
    expect(() => app().sessions({ secretKey: KEY_A, path: "/x;Domain=evil" })).toThrow(TypeError);
  });

  test("configuring twice is an error", () => {
    const twice = app().sessions({ secretKey: KEY_A });
    expect(() => twice.sessions({ secretKey: KEY_A })).toThrow(/already configured/);
  });
});

describe("Session object", () => {
  test("get/set/delete/clear/has/keys/size/toJSON and the modified flag", () => {
    const session = new Session();
    expect(session.modified).toBe(false);
    expect(session.get("a")).toBeUndefined();
    expect(session.get("a", 5)).toBe(5);
    session.set("a", 1).set("b", "two");
    expect(session.modified).toBe(true);
    expect(session.has("a")).toBe(true);
    expect(session.keys()).toEqual(["a", "b"]);
    expect(session.size).toBe(2);
    expect(session.toJSON()).toEqual({ a: 1, b: "two" });
    expect(session.delete("a")).toBe(true);
    expect(session.delete("a")).toBe(false);
    session.set("b", undefined);
    expect(session.has("b")).toBe(false);
    session.set("c", 3);
    session.clear();
    expect(session.size).toBe(0);
  });

  test("a key named __proto__ is stored as data", () => {
    const session = new Session();
    session.set("__proto__", "x");
    expect(session.get("__proto__")).toBe("x");
    expect(Object.getPrototypeOf(session.toJSON())).toBe(Object.prototype);
    expect(Object.keys(session.toJSON())).toEqual(["__proto__"]);
  });

  test("values that are not JSON are refused at set time", () => {
    const session = new Session();
    expect(() => session.set("f", () => 1)).toThrow(TypeError);
    expect(() => session.set("s", Symbol("x"))).toThrow(TypeError);
  });
});

describe("signed-cookie sessions over HTTP", () => {
  let server: ServerHandle;
  let other: ServerHandle;
  let url: string;
  const get = (path: string, cookie?: string, base = url) =>
    fetch(`${base}${path}`, cookie ? { headers: { cookie } } : undefined);

  beforeAll(async () => {
    server = await sessionApp({ secretKey: KEY_A }).start({ port: 0, host: "127.0.0.1" });
    other = await sessionApp({ secretKey: KEY_B }).start({ port: 0, host: "127.0.0.1" });
    url = server.url;
  });
  afterAll(async () => {
    await server.stop(true);
    await other.stop(true);
  });

  test("a modified session sends one Set-Cookie with the default attributes; it comes back", async () => {
    const login = await get("/login/ann");
    expect(login.status).toBe(200);
    const lines = login.headers.getSetCookie();
    expect(lines.length).toBe(1);
    expect(lines[0]).toMatch(
      /^session=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}; Max-Age=1209600; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    const cookie = cookieFrom(login) as string;
    const me = await get("/me", cookie);
    expect(await me.json()).toEqual({ user: "ann", isNew: false });
    // Reading does not re-send the cookie, but the response depends on it.
    expect(me.headers.getSetCookie()).toEqual([]);
    expect(me.headers.get("vary")).toBe("Cookie");
  });

  test("a request that never touches the session gets neither Set-Cookie nor Vary", async () => {
    const cookie = cookieFrom(await get("/login/ann")) as string;
    const response = await get("/untouched", cookie);
    expect(await response.text()).toBe("nothing");
    expect(response.headers.getSetCookie()).toEqual([]);
    expect(response.headers.get("vary")).toBeNull();
  });

  test("no cookie: an empty, new session", async () => {
    const response = await get("/me");
    expect(await response.json()).toEqual({ user: null, isNew: true });
    expect(response.headers.getSetCookie()).toEqual([]);
  });

  test("state accumulates across requests", async () => {
    let cookie = cookieFrom(await get("/count")) as string;
    for (const expected of ["2", "3"]) {
      const response = await get("/count", cookie);
      expect(await response.text()).toBe(expected);
      cookie = cookieFrom(response) as string;
    }
  });

  test("JSON data and Unicode round-trip", async () => {
    const cookie = cookieFrom(await get("/unicode")) as string;
    expect(await (await get("/dump", cookie)).json()).toEqual({
      name: "Zoë ☃ \u{1F600}",
      nested: { list: [1, "two", null], flag: true },
    });
  });

  test("clear() deletes the cookie; clearing without a cookie sends nothing", async () => {
    const cookie = cookieFrom(await get("/login/ann")) as string;
    const logout = await get("/logout", cookie);
    expect(logout.headers.getSetCookie()).toEqual([
      "session=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/; HttpOnly; SameSite=Lax",
    ]);
    expect((await get("/logout")).headers.getSetCookie()).toEqual([]);
  });

  test("a flipped byte in the payload gives an empty session", async () => {
    const value = cookieValue(cookieFrom(await get("/login/ann")) as string);
    for (const index of [0, 5, value.indexOf(".") - 1]) {
      const response = await get("/me", `session=${flip(value, index)}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ user: null, isNew: true });
    }
  });

  test("a flipped byte in the signature gives an empty session", async () => {
    const value = cookieValue(cookieFrom(await get("/login/ann")) as string);
    for (const index of [value.indexOf(".") + 1, value.length - 1]) {
      const response = await get("/me", `session=${flip(value, index)}`);
      expect(await response.json()).toEqual({ user: null, isNew: true });
    }
  });

  test("a cookie, or a signature, made with another key is refused", async () => {
    const mine = cookieValue(cookieFrom(await get("/login/ann")) as string);
    const theirs = cookieValue(cookieFrom(await get("/login/mallory", undefined, other.url)) as string);
    expect(await (await get("/me", `session=${theirs}`)).json()).toEqual({ user: null, isNew: true });
    const swapped = `${theirs.slice(0, theirs.indexOf("."))}.${mine.slice(mine.indexOf(".") + 1)}`;
    expect(await (await get("/me", `session=${swapped}`)).json()).toEqual({ user: null, isNew: true });
    const swappedBack = `${mine.slice(0, mine.indexOf("."))}.${theirs.slice(theirs.indexOf(".") + 1)}`;
    expect(await (await get("/me", `session=${swappedBack}`)).json()).toEqual({ user: null, isNew: true });
    // The genuine one still works (so the refusals above are about the key).
    expect(await (await get("/me", `session=${mine}`)).json()).toEqual({ user: "ann", isNew: false });
  });

  test("an expired cookie, correctly signed, gives an empty session", async () => {
    const codec = new SessionCodec([new TextEncoder().encode(KEY_A)], "session");
    const fifteenDaysAgo = Date.now() - 15 * 24 * 3600 * 1000;
    const expired = codec.encode({ user: "ann" }, fifteenDaysAgo, 14 * 24 * 3600);
    expect(await (await get("/me", `session=${expired}`)).json()).toEqual({ user: null, isNew: true });
    const fresh = codec.encode({ user: "ann" }, Date.now(), 14 * 24 * 3600);
    expect(await (await get("/me", `session=${fresh}`)).json()).toEqual({ user: "ann", isNew: false });
  });

  test("a valid signature over a payload that is not a session gives an empty session", async () => {
    const key = new TextEncoder().encode(KEY_A);
    const forge = (json: string) => {
      const payload = Buffer.from(json).toString("base64url");
      const mac = new Bun.CryptoHasher("sha256", key)
        .update(`webfw.session.v1\nsession\n${payload}`)
        .digest("base64url");
      return `session=${payload}.${mac}`;
    };
    // The forging helper is right: a well-formed payload is accepted.
    expect(await (await get("/me", forge('{"d":{"user":"ann"},"iat":1}'))).json()).toEqual({
      user: "ann",
      isNew: false,
    });
    for (const json of [
      "not json",
      "[]",
      "null",
      '{"d":[1],"iat":1}',
      '{"d":{"user":"x"}}',
      '{"d":{},"iat":1,"exp":"never"}',
    ]) {
      const response = await get("/me", forge(json));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ user: null, isNew: true });
    }
  });

  test("malformed cookies give an empty session, never an error", async () => {
    const malformed = [
      "session=",
      "session=.",
      "session=abc",
      "session=a.b",
      "session=...",
      `session=${"A".repeat(10_000)}.${"B".repeat(43)}`,
      "session=%%%",
      'session="quoted.value"',
      `session=payload.${"é".repeat(43)}`,
      "session=e30.!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!",
    ];
    for (const cookie of malformed) {
      const response = await get("/me", cookie);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ user: null, isNew: true });
    }
  });

  test("a forged cookie is replaced when the session is written", async () => {
    const response = await get("/login/ann", "session=forged.value");
    expect(cookieFrom(response)).not.toBeNull();
    expect(await (await get("/me", cookieFrom(response) as string)).json()).toEqual({
      user: "ann",
      isNew: false,
    });
  });

  test("a session over the cookie size limit is a 500 at set time and sends no cookie", async () => {
    const response = await get("/big");
    expect(response.status).toBe(500);
    expect(await response.text()).toBe("Internal Server Error");
    expect(response.headers.getSetCookie()).toEqual([]);
  });

  test("a session changed by a handler that then fails is still saved (like a flash message)", async () => {
    const response = await get("/fail");
    expect(response.status).toBe(400);
    expect(await response.text()).toBe("bad thing");
    const cookie = cookieFrom(response) as string;
    expect(await (await get("/dump", cookie)).json()).toEqual({ flash: "failed" });
  });
});

describe("size limit message", () => {
  test("SessionTooLargeError names the cookie, its size and the limit", async () => {
    const app = new Webfw(import.meta.path);
    app.sessions({ secretKey: KEY_A, cookieName: "sid" });
    let caught: unknown = null;
    app.get("/", (request) => {
      try {
        request.session!.set("blob", "x".repeat(4000));
      } catch (error) {
        caught = error;
      }
      return { size: request.session!.size, modified: request.session!.modified };
    });
    const server = await app.start({ port: 0, host: "127.0.0.1" });
    try {
      const response = await fetch(server.url);
      expect(await response.json()).toEqual({ size: 0, modified: false });
      expect(caught).toBeInstanceOf(SessionTooLargeError);
      expect((caught as Error).message).toMatch(
        /session cookie 'sid' would be \d+ bytes; browsers drop cookies over 4096/,
      );
    } finally {
      await server.stop(true);
    }
  });
});

describe("key rotation", () => {
  test("the first key signs, every key verifies", async () => {
    const old = await sessionApp({ secretKey: KEY_A }).start({ port: 0, host: "127.0.0.1" });
    const rotated = await sessionApp({ secretKey: [KEY_B, KEY_A] }).start({ port: 0, host: "127.0.0.1" });
    const onlyNew = await sessionApp({ secretKey: KEY_B }).start({ port: 0, host: "127.0.0.1" });
    try {
      const oldCookie = cookieFrom(await fetch(`${old.url}/login/ann`)) as string;
      // Signed with the old key: still accepted after rotation.
      const me = await fetch(`${rotated.url}/me`, { headers: { cookie: oldCookie } });
      expect(await me.json()).toEqual({ user: "ann", isNew: false });
      // Re-issued cookies are signed with the new key only.
      const newCookie = cookieFrom(
        await fetch(`${rotated.url}/count`, { headers: { cookie: oldCookie } }),
      ) as string;
      const withNew = await fetch(`${onlyNew.url}/dump`, { headers: { cookie: newCookie } });
      expect(await withNew.json()).toEqual({ user: "ann", count: 1 });
      const withOld = await fetch(`${old.url}/dump`, { headers: { cookie: newCookie } });
      expect(await withOld.json()).toEqual({});
    } finally {
      await old.stop(true);
      await rotated.stop(true);
      await onlyNew.stop(true);
    }
  });
});

describe("cookie options, rolling and commitSession", () => {
  test("custom cookie name and attributes; maxAge null is a browser-session cookie", async () => {
    const app = sessionApp({
      secretKey: KEY_A,
      cookieName: "__Host-sid",
      maxAge: null,
      secure: true,
      sameSite: "Strict",
    });
    const server = await app.start({ port: 0, host: "127.0.0.1" });
    try {
      const response = await fetch(`${server.url}/login/ann`);
      const [line] = response.headers.getSetCookie();
      expect(line).toMatch(/^__Host-sid=[^;]+; Path=\/; Secure; HttpOnly; SameSite=Strict$/);
      const cookie = cookieFrom(response, "__Host-sid") as string;
      expect(await (await fetch(`${server.url}/me`, { headers: { cookie } })).json()).toEqual({
        user: "ann",
        isNew: false,
      });
      // The signature covers the cookie name: the same value under the default name is not accepted elsewhere.
      const renamed = await sessionApp({ secretKey: KEY_A }).start({ port: 0, host: "127.0.0.1" });
      try {
        const moved = `session=${cookieValue(cookie)}`;
        expect(await (await fetch(`${renamed.url}/me`, { headers: { cookie: moved } })).json()).toEqual({
          user: null,
          isNew: true,
        });
      } finally {
        await renamed.stop(true);
      }
    } finally {
      await server.stop(true);
    }
  });

  test("rolling re-sends the cookie with a fresh expiry while the session holds data", async () => {
    const server = await sessionApp({ secretKey: KEY_A, rolling: true, maxAge: 600 }).start({
      port: 0,
      host: "127.0.0.1",
    });
    try {
      const cookie = cookieFrom(await fetch(`${server.url}/login/ann`)) as string;
      const untouched = await fetch(`${server.url}/untouched`, { headers: { cookie } });
      const [line] = untouched.headers.getSetCookie();
      expect(line).toMatch(/^session=[^;]+; Max-Age=600; Path=\/; HttpOnly; SameSite=Lax$/);
      expect(
        await (
          await fetch(`${server.url}/me`, { headers: { cookie: cookieFrom(untouched) as string } })
        ).json(),
      ).toEqual({ user: "ann", isNew: false });
      // An empty session is not rolled.
      expect((await fetch(`${server.url}/untouched`)).headers.getSetCookie()).toEqual([]);
    } finally {
      await server.stop(true);
    }
  });

  test("commitSession saves the session from a before-middleware that answers itself", async () => {
    const app = new Webfw(import.meta.path);
    app.sessions({ secretKey: KEY_A });
    app.beforeRequest("/guard", (request) => {
      request.session!.set("visited", "guard");
      const response = new Response(302, { location: "/dump" }, "");
      commitSession(request, response);
      return response;
    });
    app.get("/guard", () => "never");
    app.get("/dump", (request) => request.session!.toJSON());
    const server = await app.start({ port: 0, host: "127.0.0.1" });
    try {
      const response = await fetch(`${server.url}/guard`, { redirect: "manual" });
      expect(response.status).toBe(302);
      expect(response.headers.getSetCookie().length).toBe(1);
      const cookie = cookieFrom(response) as string;
      expect(await (await fetch(`${server.url}/dump`, { headers: { cookie } })).json()).toEqual({
        visited: "guard",
      });
    } finally {
      await server.stop(true);
    }
  });

  test("commitSession then the after-middleware: still one Set-Cookie", async () => {
    const app = new Webfw(import.meta.path);
    app.sessions({ secretKey: KEY_A });
    app.get("/", (request) => {
      request.session!.set("a", 1);
      const response = new Response(200, {}, "ok");
      commitSession(request, response);
      return response;
    });
    const server = await app.start({ port: 0, host: "127.0.0.1" });
    try {
      expect((await fetch(server.url)).headers.getSetCookie().length).toBe(1);
    } finally {
      await server.stop(true);
    }
  });

  test("without sessions(), request.session is null and commitSession explains", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/", (request) => {
      let message = "";
      try {
        commitSession(request, new Response());
      } catch (error) {
        message = (error as Error).message;
      }
      return { session: request.session, message };
    });
    const server = await app.start({ port: 0, host: "127.0.0.1" });
    try {
      expect(await (await fetch(server.url)).json()).toEqual({
        session: null,
        message:
          "commitSession: sessions are not configured (call app.sessions() or router.sessions() first)",
      });
    } finally {
      await server.stop(true);
    }
  });
});

describe("crossing to a handler Worker (snapshot / detached / absorb)", () => {
  test("changes made on the Worker side are written by the main thread; reads only add Vary", async () => {
    const app = new Webfw(import.meta.path);
    app.sessions({ secretKey: KEY_A });
    // What the worker pool does, with structuredClone standing in for postMessage.
    const viaWorker = (request: Request, work: (remote: Session) => unknown) => {
      const remote = Session.detached(structuredClone(request.session!.snapshot()));
      const result = work(remote);
      request.session!.absorb(structuredClone(remote.snapshot()));
      return result;
    };
    app.get("/inc", (request) =>
      viaWorker(request, (remote) => {
        remote.set("n", remote.get("n", 0) + 1);
        return String(remote.get("n"));
      }),
    );
    app.get("/read", (request) =>
      viaWorker(request, (remote) => ({ n: remote.get("n") ?? null, isNew: remote.isNew })),
    );
    app.get("/huge", (request) =>
      viaWorker(request, (remote) => remote.set("blob", "x".repeat(5000)) && "no"),
    );
    const server = await app.start({ port: 0, host: "127.0.0.1" });
    try {
      const first = await fetch(`${server.url}/inc`);
      expect(await first.text()).toBe("1");
      const second = await fetch(`${server.url}/inc`, { headers: { cookie: cookieFrom(first) as string } });
      expect(await second.text()).toBe("2");
      const read = await fetch(`${server.url}/read`, { headers: { cookie: cookieFrom(second) as string } });
      expect(await read.json()).toEqual({ n: 2, isNew: false });
      expect(read.headers.getSetCookie()).toEqual([]);
      expect(read.headers.get("vary")).toBe("Cookie");
      const fresh = await fetch(`${server.url}/read`);
      expect(await fresh.json()).toEqual({ n: null, isNew: true });
      // The size limit still holds: checked when the main thread takes the data over.
      const huge = await fetch(`${server.url}/huge`);
      expect(huge.status).toBe(500);
      expect(huge.headers.getSetCookie()).toEqual([]);
    } finally {
      await server.stop(true);
    }
  });
});
