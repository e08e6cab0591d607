/**
 * What test/sessions/sessions.test.ts and test/cors/cors.test.ts do not already try:
 * a session cookie moved to another cookie name, cookie tossing (two cookies
 * of one name), padded signatures; Origin headers that only a raw client can
 * send (two of them, userinfo, a trailing dot, non-ASCII bytes).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import { Results, startQuiet } from "./helpers.ts";
import { rawExchange, rawGet } from "./raw-client.ts";

const KEY = "a-session-secret-of-at-least-32-bytes!";
const GOOD = "https://good.example";
const results = new Results("sessions-cors");

function sessionApp(cookieName: string): Webfw {
  const app = new Webfw(import.meta.path);
  app.sessions({ secretKey: KEY, cookieName });
  app.get("/login/:user", (request) => {
    request.session?.set("user", request.pathParams.user);
    return "ok";
  });
  app.get("/me", (request) => ({ user: request.session?.get("user") ?? null }));
  return app;
}

const cookieValue = (response: Response, name: string) =>
  (response.headers.getSetCookie()[0] ?? "").match(new RegExp(`^${name}=([^;]*)`))?.[1] ?? "";

describe("session tampering (beyond test/sessions.test.ts)", () => {
  let main: ServerHandle;
  let other: ServerHandle;
  beforeAll(async () => {
    main = await startQuiet(sessionApp("session"));
    other = await startQuiet(sessionApp("admin_session"));
  });
  afterAll(async () => {
    await main.stop(true);
    await other.stop(true);
  });
  const me = async (server: ServerHandle, cookie: string) =>
    (await (await fetch(`${server.url}/me`, { headers: { cookie } })).json()) as { user: string | null };

  test("a cookie signed with the same key for another cookie name is refused", async () => {
    const value = cookieValue(await fetch(`${main.url}/login/ann`), "session");
    expect((await me(main, `session=${value}`)).user).toBe("ann");
    expect((await me(other, `admin_session=${value}`)).user).toBeNull();
    results.add({
      group: "sessions",
      input: "valid cookie moved to another cookie name (same key)",
      outcome: "empty session",
    });
  });

  test("cookie tossing: with two cookies of the session's name, the first decides; a forged first one gives an empty session", async () => {
    const value = cookieValue(await fetch(`${main.url}/login/ann`), "session");
    const mallory = cookieValue(await fetch(`${main.url}/login/mallory`), "session");
    expect((await me(main, `session=forged.value; session=${value}`)).user).toBeNull();
    expect((await me(main, `session=${value}; session=${mallory}`)).user).toBe("ann");
    results.add({
      group: "sessions",
      input: "two session cookies, forged one first",
      outcome: "empty session (never the other's data)",
    });
  });

  test("a signature with base64 padding, standard alphabet or surrounding spaces is refused", async () => {
    const value = cookieValue(await fetch(`${main.url}/login/ann`), "session");
    const dot = value.lastIndexOf(".");
    const payload = value.slice(0, dot);
    const signature = value.slice(dot + 1);
    for (const forged of [
      `${payload}.${signature}=`,
      `${payload}.${signature.replaceAll("-", "+").replaceAll("_", "/")}`,
      `${payload}=.${signature}`,
      `${payload}.${signature.slice(0, -1)}`,
      `${payload}..${signature}`,
    ]) {
      if (forged.replaceAll("+", "-").replaceAll("/", "_") === value) continue; // the swap changed nothing
      expect((await me(main, `session=${forged}`)).user).toBeNull();
    }
    results.add({
      group: "sessions",
      input: "padded / re-alphabeted / truncated signature",
      outcome: "empty session",
    });
  });
});

describe("CORS origins only a raw client can send", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    const app = new Webfw(import.meta.path);
    app.cors({ origins: [GOOD], credentials: true });
    app.get("/data", () => "data");
    server = await startQuiet(app);
  });
  afterAll(() => server.stop(true));

  const attempts: [string, string][] = [
    ["two Origin headers, the good one second", `Origin: https://evil.example\r\nOrigin: ${GOOD}\r\n`],
    ["two Origin headers, the good one first", `Origin: ${GOOD}\r\nOrigin: https://evil.example\r\n`],
    ["userinfo before the host", "Origin: https://good.example@evil.example\r\n"],
    ["trailing dot", "Origin: https://good.example.\r\n"],
    ["non-ASCII look-alike (Cyrillic o)", "Origin: https://g\xd0\xbe\xd0\xbed.example\r\n"],
    ["tab inside", "Origin: https://good.example\t.evil\r\n"],
    ["good origin with a path", `Origin: ${GOOD}/x\r\n`],
    ["scheme-relative", "Origin: //good.example\r\n"],
    ["null", "Origin: null\r\n"],
  ];
  for (const [name, headers] of attempts) {
    test(name, async () => {
      for (const preflight of [false, true]) {
        const method = preflight ? "OPTIONS" : "GET";
        const extra = preflight ? "Access-Control-Request-Method: GET\r\n" : "";
        const reply = await rawExchange(
          server.port,
          `${method} /data HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${headers}${extra}\r\n`,
        );
        expect(reply.headers["access-control-allow-origin"]).toBeUndefined();
        expect(reply.headers["access-control-allow-credentials"]).toBeUndefined();
        expect(reply.status).toBeLessThan(500);
      }
      results.add({ group: "CORS", input: `Origin: ${name}`, outcome: "no Access-Control-Allow-* headers" });
    });
  }

  test("the genuine origin is allowed (so the refusals above are about the origin)", async () => {
    const reply = await rawGet(server.port, "/data", `Origin: ${GOOD}\r\n`);
    expect(reply.headers["access-control-allow-origin"]).toBe(GOOD);
    expect(reply.headers["access-control-allow-credentials"]).toBe("true");
  });
});

afterAll(() => results.write());
