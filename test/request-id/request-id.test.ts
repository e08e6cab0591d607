/**
 * Request ids over real HTTP (docs/request-ids.md): echoed, the client's sane id kept,
 * hostile ids replaced, the same id in the handler, the middlewares, a Worker,
 * the access log and the error log.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import app from "../../examples/request-ids.ts";
import { isSaneRequestId, MAX_REQUEST_ID_LENGTH } from "../../src/http/request-id.ts";
import { HttpError, type ServerHandle, Webfw } from "../../src/index.ts";
import { type LogLevel, logger, stderrSink } from "../../src/log/logger.ts";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const lines: string[] = [];
let server: ServerHandle;
beforeAll(async () => {
  logger.setSink((line: string, _level: LogLevel) => {
    lines.push(line);
  });
  server = await app.start({ port: 0, workers: 2, accessLog: true });
});
afterAll(async () => {
  await server.stop();
  logger.setSink(stderrSink);
});

/** One raw HTTP/1.1 exchange, for header values `fetch` refuses to send. */
async function rawGet(
  path: string,
  headerLines: string[],
): Promise<{ status: number; head: string; body: string }> {
  const { promise, resolve, reject } = Promise.withResolvers<string>();
  let text = "";
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port: server.port,
    socket: {
      data(_sock, chunk) {
        text += Buffer.from(chunk).toString("latin1");
      },
      close() {
        resolve(text);
      },
      error(_sock, error) {
        reject(error);
      },
    },
  });
  socket.write(
    Buffer.from(
      [
        `GET ${path} HTTP/1.1`,
        `Host: 127.0.0.1:${server.port}`,
        "Connection: close",
        ...headerLines,
        "",
        "",
      ].join("\r\n"),
      "latin1",
    ),
  );
  const all = await promise;
  const end = all.indexOf("\r\n\r\n");
  return { status: Number(all.split(" ")[1]), head: all.slice(0, end), body: all.slice(end + 4) };
}

function headerOf(head: string, name: string): string | null {
  for (const line of head.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0 && line.slice(0, colon).toLowerCase() === name) return line.slice(colon + 1).trim();
  }
  return null;
}

describe("request ids (examples/request-ids.ts, --workers 2)", () => {
  test("a request without an id gets a new UUIDv7, echoed and seen by the handler", async () => {
    const response = await fetch(`${server.url}/`);
    const id = response.headers.get("x-request-id");
    expect(response.status).toBe(200);
    expect(id).toMatch(UUID_V7);
    expect(await response.json()).toEqual({ id });
  });

  test("ids of successive requests differ and sort by time", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await fetch(`${server.url}/`)).headers.get("x-request-id") as string);
    expect(new Set(ids).size).toBe(5);
    expect([...ids].sort()).toEqual(ids);
  });

  test("the client's sane id is kept: echoed, in the handler and the middleware", async () => {
    const sent = "trace-42_ABC.def:~!";
    const response = await fetch(`${server.url}/orders/7`, { headers: { "x-request-id": sent } });
    expect(response.headers.get("x-request-id")).toBe(sent);
    expect(await response.json()).toEqual({
      order: "7",
      requestId: sent,
      state: { seenBy: `middleware ${sent}` },
    });
  });

  test("128 characters are kept, 129 are replaced", async () => {
    const longest = "a".repeat(MAX_REQUEST_ID_LENGTH);
    const kept = await fetch(`${server.url}/`, { headers: { "x-request-id": longest } });
    expect(kept.headers.get("x-request-id")).toBe(longest);
    const tooLong = await fetch(`${server.url}/`, { headers: { "x-request-id": `${longest}a` } });
    const replaced = tooLong.headers.get("x-request-id");
    expect(replaced).toMatch(UUID_V7);
    expect(await tooLong.json()).toEqual({ id: replaced });
  });

  test("hostile ids (spaces, tabs, control characters, non-ASCII, empty) are replaced, never echoed", async () => {
    const hostile = [
      "two words",
      "tab\there",
      "ctl\x01x",
      "bell\x07",
      "caf\xe9",
      "\x7f",
      "inject\x1b[31mred",
    ];
    for (const value of hostile) {
      const { status, head, body } = await rawGet("/", [`X-Request-Id: ${value}`]);
      // Bun itself refuses some bytes in a header value with 400; either way the value never comes back.
      expect([200, 400]).toContain(status);
      expect(head).not.toContain(value);
      if (status === 200) {
        const echoed = headerOf(head, "x-request-id");
        expect(echoed).toMatch(UUID_V7);
        expect(JSON.parse(body)).toEqual({ id: echoed });
      }
    }
    const empty = await rawGet("/", ["X-Request-Id: "]);
    expect(headerOf(empty.head, "x-request-id")).toMatch(UUID_V7);
  });

  test("an offloaded handler on a Worker sees the same id", async () => {
    const response = await fetch(`${server.url}/report`, { headers: { "x-request-id": "from-client-1" } });
    expect(response.headers.get("x-request-id")).toBe("from-client-1");
    expect(await response.json()).toEqual({ requestId: "from-client-1", onWorker: true });
    const fresh = await fetch(`${server.url}/report`);
    const body = (await fresh.json()) as { requestId: string; onWorker: boolean };
    expect(body.onWorker).toBe(true);
    expect(body.requestId).toBe(fresh.headers.get("x-request-id") as string);
  });

  test("errors and unmatched paths carry the id too (404, 405, HttpError)", async () => {
    for (const [path, init, status] of [
      ["/nowhere", {}, 404],
      ["/", { method: "POST" }, 405],
      ["/missing", {}, 404],
    ] as const) {
      const response = await fetch(`${server.url}${path}`, {
        ...init,
        headers: { "x-request-id": `err-${status}` },
      });
      expect(response.status).toBe(status);
      expect(response.headers.get("x-request-id")).toBe(`err-${status}`);
    }
  });

  test("the access log line and the 500's error log line name the id", async () => {
    const response = await fetch(`${server.url}/crash`, { headers: { "x-request-id": "crash-report-9" } });
    expect(response.status).toBe(500);
    expect(response.headers.get("x-request-id")).toBe("crash-report-9");
    expect(await response.text()).not.toContain("hunter2");
    await Bun.sleep(20);
    const error = lines.find(
      (line) => line.includes("level=ERROR") && line.includes("request_id=crash-report-9"),
    );
    expect(error).toContain("hunter2");
    const access = lines.find((line) => line.includes('msg="GET /crash 500"'));
    expect(access).toContain("request_id=crash-report-9");
    const fresh = await fetch(`${server.url}/orders/1`);
    await Bun.sleep(20);
    const id = fresh.headers.get("x-request-id") as string;
    expect(
      lines.some((line) => line.includes('msg="GET /orders/1 200"') && line.includes(`request_id=${id}`)),
    ).toBe(true);
  });
});

describe("request id options", () => {
  test("off by default: nothing echoed, request.id still works, const routes stay static", async () => {
    const plain = new Webfw(import.meta.path);
    plain.get("/", ({ id }) => id);
    plain.get("/const", () => "fixed", { const: true });
    const handle = await plain.start({ port: 0 });
    try {
      const response = await fetch(`${handle.url}/`, { headers: { "x-request-id": "kept-anyway" } });
      expect(response.headers.get("x-request-id")).toBeNull();
      expect(await response.text()).toBe("kept-anyway");
      const made = await fetch(`${handle.url}/`);
      expect(await made.text()).toMatch(UUID_V7);
      expect((await fetch(`${handle.url}/const`)).headers.get("x-request-id")).toBeNull();
    } finally {
      await handle.stop();
    }
  });

  test("a custom header, distrust of the client's id, and const routes echo per request", async () => {
    const custom = new Webfw(import.meta.path, {
      requestId: { header: "X-Correlation-Id", trustIncoming: false },
    });
    custom.get("/", ({ id }) => id);
    custom.get("/const", () => "fixed", { const: true });
    const handle = await custom.start({ port: 0 });
    try {
      const response = await fetch(`${handle.url}/`, { headers: { "x-correlation-id": "spoofed" } });
      const id = response.headers.get("x-correlation-id");
      expect(id).toMatch(UUID_V7);
      expect(await response.text()).toBe(id as string);
      expect(response.headers.get("x-request-id")).toBeNull();
      const first = (await fetch(`${handle.url}/const`)).headers.get("x-correlation-id");
      const second = (await fetch(`${handle.url}/const`)).headers.get("x-correlation-id");
      expect(first).toMatch(UUID_V7);
      expect(second).not.toBe(first);
    } finally {
      await handle.stop();
    }
  });

  test("a bad header name is refused at construction", () => {
    expect(() => new Webfw(import.meta.path, { requestId: { header: "bad header" } })).toThrow(TypeError);
  });

  test("an HttpError's own X-Request-Id is replaced by the request's", async () => {
    const custom = new Webfw(import.meta.path, { requestId: true });
    custom.get("/", () => {
      throw new HttpError(409, "conflict", { "x-request-id": "forged" });
    });
    const response = await custom.request("/", { headers: { "x-request-id": "real" } });
    expect(response.status).toBe(409);
    expect(response.headers.get("x-request-id")).toBe("real");
  });

  test("isSaneRequestId", () => {
    expect(isSaneRequestId("abc-123")).toBe(true);
    expect(isSaneRequestId("")).toBe(false);
    expect(isSaneRequestId("a b")).toBe(false);
    expect(isSaneRequestId("é")).toBe(false);
    expect(isSaneRequestId("x".repeat(129))).toBe(false);
  });
});
