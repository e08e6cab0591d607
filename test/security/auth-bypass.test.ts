/**
 * Attempts to reach `authRequired` routes without a valid token, over raw TCP
 * and for each router engine: path spellings (`//`, `/./`, `%2F`, case,
 * trailing slash, dot segments, encoded letters), other methods (HEAD,
 * OPTIONS, TRACE, POST) and method-override headers, which webfw never reads.
 * None may run a protected handler: the handlers count their calls.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  AuthenticationHandler,
  Identity,
  type Request,
  type ServerHandle,
  SubRouter,
  Webfw,
} from "../../src/index.ts";
import type { RouterEngine } from "../../src/match/types.ts";
import { Results, startQuiet } from "./helpers.ts";
import { rawExchange } from "./raw-client.ts";

const TOKEN = "correct-horse-battery-staple";
const PROTECTED = "PROTECTED-BODY-91c2";

class TokenAuth extends AuthenticationHandler {
  authenticate(request: Request): Identity | null {
    return this.tokenGetter.getToken(request) === TOKEN ? new Identity({ claims: { sub: "admin" } }) : null;
  }
}

const calls = { protected: 0 };
const results = new Results("auth-bypass");

function buildApp(engine: RouterEngine): Webfw {
  const app = new Webfw(import.meta.path, { router: engine });
  app.configureAuthentication(new TokenAuth());
  const guard = () => {
    calls.protected++;
    return PROTECTED;
  };
  app.get("/admin", guard, { authRequired: true });
  app.get("/admin/users/:id", guard, { authRequired: true });
  app.delete("/admin/users/:id", guard, { authRequired: true });
  app.get("/files/*rest", guard, { authRequired: true });
  // GET is protected, POST is public: an override header must not turn the POST into the GET.
  app.get("/thing", guard, { authRequired: true });
  app.post("/thing", () => "public post");
  app.get("/public", () => "public");
  const api = new SubRouter(import.meta.path, { prefix: "/api" });
  api.get("/secret", guard, { authRequired: true });
  app.includeRouter(api);
  return app;
}

const ENGINES: RouterEngine[] = ["bun", "js", "ffi"];
const servers: { engine: RouterEngine; handle: ServerHandle }[] = [];

beforeAll(async () => {
  for (const engine of ENGINES) servers.push({ engine, handle: await startQuiet(buildApp(engine)) });
});
afterAll(async () => {
  for (const s of servers) await s.handle.stop(true);
  results.write();
});

function request(method: string, target: string, headers = ""): string {
  const body = method === "POST" || method === "DELETE" ? "Content-Length: 0\r\n" : "";
  return `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${body}${headers}\r\n`;
}

const PATHS = [
  "/admin",
  "//admin",
  "///admin",
  "/./admin",
  "/admin/.",
  "/admin/",
  "/admin//",
  "/ADMIN",
  "/Admin",
  "/%61dmin",
  "/%2Fadmin",
  "/admin%2F",
  "/admin%2f",
  "/admin;",
  "/admin;jsessionid=1",
  "/admin?",
  "/admin?x=1",
  "/admin#frag",
  "/public/../admin",
  "/public/%2e%2e/admin",
  "/public/..%2Fadmin",
  "/public%2F..%2Fadmin",
  "/admin/users/1",
  "/admin/users/1/",
  "//admin//users//1",
  "/admin/users/%2e%2e",
  "/admin%2Fusers%2F1",
  "/files/a/b",
  "/files/%2e%2e/x",
  "/api/secret",
  "//api//secret",
  "/API/secret",
  "/api/./secret",
  "/api/Secret",
  "/api%2Fsecret",
  "/x/../api/secret",
  "http://127.0.0.1/admin",
  "http://evil.example/admin",
];

/** Sends one attempt to every engine; the protected body must never come back. */
async function attempt(method: string, target: string, headers = ""): Promise<Set<number>> {
  const statuses = new Set<number>();
  for (const { handle } of servers) {
    const before = calls.protected;
    const reply = await rawExchange(handle.port, request(method, target, headers));
    statuses.add(reply.status);
    expect(reply.raw).not.toContain(PROTECTED);
    expect(calls.protected).toBe(before);
    expect(reply.status).not.toBe(200);
    expect(reply.status).toBeLessThan(500);
  }
  return statuses;
}

describe("no path spelling reaches a protected handler without the token", () => {
  for (const path of PATHS) {
    test(path, async () => {
      const statuses = await attempt("GET", path);
      results.add({ group: "path spelling", input: `GET ${path}`, outcome: [...statuses].sort().join("/") });
      // Spellings that resolve to the protected route get 401; `//admin` and `/%61dmin` name no route (404) on
      // every engine: empty segments are not merged and unreserved escapes are not decoded before matching.
      if (["/admin", "/./admin", "/admin/", "/admin?x=1", "/public/../admin"].includes(path)) {
        expect([...statuses]).toEqual([401]);
      }
      if (["//admin", "/%61dmin", "/ADMIN"].includes(path)) expect([...statuses]).toEqual([404]);
    });
  }
});

describe("other methods and method-override headers", () => {
  const cases: [string, string, string][] = [
    ["HEAD", "/admin", ""],
    ["OPTIONS", "/admin", ""],
    ["TRACE", "/admin", ""],
    ["POST", "/admin", ""],
    ["POST", "/admin", "X-HTTP-Method-Override: GET\r\n"],
    ["POST", "/admin", "X-Method-Override: GET\r\n"],
    ["POST", "/admin", "X-HTTP-Method: GET\r\n"],
    ["POST", "/admin?_method=GET", ""],
    ["PUT", "/admin/users/1", "X-HTTP-Method-Override: DELETE\r\n"],
    ["HEAD", "/admin/users/1", "X-HTTP-Method-Override: GET\r\n"],
    ["OPTIONS", "/api/secret", "Access-Control-Request-Method: GET\r\nOrigin: http://evil.example\r\n"],
  ];
  for (const [method, path, headers] of cases) {
    test(`${method} ${path} ${headers.trim()}`, async () => {
      const statuses = await attempt(method, path, headers);
      results.add({
        group: "methods and overrides",
        input: `${method} ${path} ${headers.trim()}`.trim(),
        outcome: [...statuses].sort().join("/"),
      });
    });
  }

  test("HEAD gets 401 like GET (it runs GET's pipeline)", async () => {
    for (const { handle } of servers) {
      const reply = await rawExchange(handle.port, request("HEAD", "/admin"));
      expect(reply.status).toBe(401);
      expect(reply.headers["www-authenticate"]).toBe("Bearer");
    }
  });

  test("an override header on a public POST runs the POST, never the protected GET", async () => {
    for (const override of ["X-HTTP-Method-Override", "X-Method-Override", "X-HTTP-Method"]) {
      for (const { handle } of servers) {
        const reply = await rawExchange(handle.port, request("POST", "/thing", `${override}: GET\r\n`));
        expect(reply.status).toBe(200);
        expect(reply.body).toBe("public post");
      }
    }
  });
});

describe("credentials that are almost right", () => {
  const cases: [string, string][] = [
    ["no Authorization", ""],
    ["empty bearer", "Authorization: Bearer\r\n"],
    ["bearer and spaces", "Authorization: Bearer    \r\n"],
    ["wrong scheme", `Authorization: Basic ${TOKEN}\r\n`],
    ["token with a suffix", `Authorization: Bearer ${TOKEN}x\r\n`],
    ["token prefix", `Authorization: Bearer ${TOKEN.slice(0, -1)}\r\n`],
    ["token upper-cased", `Authorization: Bearer ${TOKEN.toUpperCase()}\r\n`],
    ["token in the query", ""],
    ["token in a cookie", `Cookie: token=${TOKEN}; authorization=Bearer%20${TOKEN}\r\n`],
    [
      "two Authorization headers, second right",
      `Authorization: Bearer nope\r\nAuthorization: Bearer ${TOKEN}\r\n`,
    ],
  ];
  for (const [name, headers] of cases) {
    test(name, async () => {
      const path = name === "token in the query" ? `/admin?access_token=${TOKEN}&token=${TOKEN}` : "/admin";
      const statuses = await attempt("GET", path, headers);
      expect([...statuses]).toEqual([401]);
      results.add({ group: "credentials", input: name, outcome: "401" });
    });
  }

  test("the real token works on every engine (the attempts above were refused, not broken)", async () => {
    for (const { handle } of servers) {
      for (const path of ["/admin", "/admin/users/1", "/api/secret", "/files/a/b"]) {
        const before = calls.protected;
        const reply = await rawExchange(
          handle.port,
          request("GET", path, `Authorization: Bearer ${TOKEN}\r\n`),
        );
        expect(reply.status).toBe(200);
        expect(reply.body).toBe(PROTECTED);
        expect(calls.protected).toBe(before + 1);
      }
    }
  });
});
