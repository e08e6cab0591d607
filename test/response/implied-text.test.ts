/**
 * A handler's text behind after-middlewares (docs/responses.md, "Return values"): the webfw
 * `Response` stores no type, shows Bun's own (`text/plain;charset=utf-8`), and is sent as the Web
 * response whose headers the middleware wrote into, unless it changed the status or the body
 * (src/response/response.ts, src/response/web-response.ts). Everything a middleware can do still
 * reaches the client.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Headers, type Request, type Response, Webfw } from "../../src/index.ts";

const TEXT = "text/plain;charset=utf-8";

/** What the after-middleware does on each path. */
const AFTER: Record<string, (response: Response, request: Request) => void> = {
  "/read": (response) => {
    response.headers.set("x-type", response.headers.get("content-type") ?? "none");
    response.headers.set("x-has", String(response.headers.has("Content-Type")));
  },
  "/status": (response) => {
    response.headers.set("x-after", "1");
    response.statusCode = 201;
  },
  "/bytes": (response) => {
    response.headers.set("x-after", "1");
    response.description = new Uint8Array([1, 2, 3]);
  },
  "/text": (response) => {
    response.headers.set("x-after", "1");
    response.description = "replaced";
  },
  "/typed": (response) => {
    response.headers.set("Content-Type", "text/html; charset=utf-8");
  },
  "/deleted": (response) => {
    response.headers.delete("content-type");
    response.headers.set("x-type", response.headers.get("content-type") ?? "none");
  },
  "/cookie": (response) => {
    response.setCookie("a", "1");
    response.setCookie("b", "2");
  },
  "/keys": (response) => {
    response.headers.set("x-keys", response.headers.keys().join(","));
  },
  "/raw": (response) => {
    response.headers.raw.set("x-raw", response.headers.raw.get("content-type") ?? "none");
  },
  "/replaced": (response) => {
    response.headers = new Headers({ "x-new": "1" });
  },
  "/appended": (response) => {
    response.headers.append("content-type", "x");
  },
  "/pair": (response) => {
    response.headers.set("x-type", response.headers.get("content-type") ?? "none");
  },
  "/untouched": () => {},
  "/fails": (response) => {
    response.headers.set("x-after", "1");
  },
};

let app: Webfw;
let base = "";
let stop: () => Promise<void>;

beforeAll(async () => {
  app = new Webfw(import.meta.path);
  app.afterRequest((response, request) => AFTER[new URL(request.raw.url).pathname]?.(response, request));
  for (const path of Object.keys(AFTER)) {
    if (path === "/pair") app.get(path, () => ["gone", 204]);
    else if (path === "/fails")
      app.get(path, () => {
        throw new Error("boom");
      });
    else app.get(path, () => "hello");
  }
  const server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
  base = String(server.url).replace(/\/$/, "");
  stop = () => server.stop(true);
});
afterAll(() => stop());

async function get(path: string, method = "GET"): Promise<globalThis.Response> {
  return fetch(`${base}${path}`, { method });
}

test("the middleware reads Bun's implied type; the wire carries it", async () => {
  const response = await get("/read");
  expect(response.status).toBe(200);
  expect(response.headers.get("x-type")).toBe(TEXT);
  expect(response.headers.get("x-has")).toBe("true");
  expect(response.headers.get("content-type")).toBe(TEXT);
  expect(await response.text()).toBe("hello");
});

test("a status changed after the headers were read: the new status, the same headers", async () => {
  const response = await get("/status");
  expect(response.status).toBe(201);
  expect(response.headers.get("x-after")).toBe("1");
  expect(response.headers.get("content-type")).toBe(TEXT);
  expect(await response.text()).toBe("hello");
});

test("the body replaced by bytes keeps the text's type; replaced by text, it is sent", async () => {
  const bytes = await get("/bytes");
  expect(bytes.headers.get("x-after")).toBe("1");
  expect(bytes.headers.get("content-type")).toBe(TEXT);
  expect([...new Uint8Array(await bytes.arrayBuffer())]).toEqual([1, 2, 3]);
  const text = await get("/text");
  expect(text.headers.get("x-after")).toBe("1");
  expect(text.headers.get("content-type")).toBe(TEXT);
  expect(await text.text()).toBe("replaced");
});

test("a type the middleware sets is sent", async () => {
  const response = await get("/typed");
  expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(await response.text()).toBe("hello");
});

test("the type deleted: the headers show none, Bun still sends its default for text", async () => {
  const response = await get("/deleted");
  expect(response.headers.get("x-type")).toBe("none");
  expect(response.headers.get("content-type")).toBe(TEXT);
});

test("cookies, every header's reader and raw see the type", async () => {
  const cookie = await get("/cookie");
  expect(cookie.headers.getSetCookie()).toEqual(["a=1; Path=/", "b=2; Path=/"]);
  expect(cookie.headers.get("content-type")).toBe(TEXT);
  expect(await cookie.text()).toBe("hello");
  expect((await get("/keys")).headers.get("x-keys")).toBe("content-type");
  const raw = await get("/raw");
  expect(raw.headers.get("x-raw")).toBe(TEXT);
  expect(raw.headers.get("content-type")).toBe(TEXT);
});

test("headers replaced: the new ones are sent, not the Web response made for the old", async () => {
  const response = await get("/replaced");
  expect(response.headers.get("x-new")).toBe("1");
  expect(response.headers.get("content-type")).toBe(TEXT);
  expect(await response.text()).toBe("hello");
});

test("a value appended to the implied type joins it, as it joined the stored one", async () => {
  const response = await get("/appended");
  expect(response.headers.get("content-type")).toBe(`${TEXT}, x`);
});

test("no body (a [text, 204] pair): the type still shows, nothing is sent", async () => {
  const response = await get("/pair");
  expect(response.status).toBe(204);
  expect(response.headers.get("x-type")).toBe(TEXT);
  expect(await response.text()).toBe("");
});

test("a middleware that does not read the headers; HEAD; an error through the middleware", async () => {
  const untouched = await get("/untouched");
  expect(untouched.headers.get("content-type")).toBe(TEXT);
  expect(await untouched.text()).toBe("hello");
  const head = await get("/read", "HEAD");
  expect(head.status).toBe(200);
  expect(head.headers.get("content-type")).toBe(TEXT);
  expect(head.headers.get("x-type")).toBe(TEXT);
  expect(await head.text()).toBe("");
  const failed = await get("/fails");
  expect(failed.status).toBe(500);
  expect(failed.headers.get("x-after")).toBe("1");
});

test("in process (app.request): the type is visible in the headers", async () => {
  const response = await app.request("/read");
  expect(response.headers.get("content-type")).toBe(TEXT);
  expect(response.headers.get("x-type")).toBe(TEXT);
});

test("an after-middleware that reads toWeb()'s body still sends the whole body (the made Web response is handed out once)", async () => {
  const app = new Webfw(import.meta.path);
  app.afterRequest(async (response) => {
    response.headers.set("x-after", "1");
    const seen = await response.toWeb().text();
    response.headers.set("x-seen", seen);
  });
  app.get("/", () => "hello");
  const server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
  try {
    const answer = await fetch(`${server.url}/`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-after")).toBe("1");
    expect(answer.headers.get("x-seen")).toBe("hello");
    expect(answer.headers.get("content-type")).toBe(TEXT);
    expect(await answer.text()).toBe("hello");
  } finally {
    await server.stop(true);
  }
});
