import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { BodyBudget } from "../../src/body/budget.ts";
import { deadlineTickMs, decodeBody, readBody, readUnreadBody } from "../../src/body/read-body.ts";
import { BadRequestError, HttpError } from "../../src/response/errors.ts";
import { rawRequest } from "../static/raw-http.ts";

const LIMIT = 1000;
let server: Server<unknown>;
let lastError: unknown = null;
let errorSeen: () => void = () => {};

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      try {
        const bytes = await readBody(request, LIMIT);
        const sum = bytes.reduce((a, b) => (a + b) % 65536, 0);
        return Response.json({ length: bytes.length, sum });
      } catch (error) {
        lastError = error;
        errorSeen();
        if (error instanceof HttpError) return new Response(error.message, { status: error.status });
        return new Response("unexpected", { status: 500 });
      }
    },
  });
});

afterAll(() => {
  server.stop(true);
});

const url = () => `http://127.0.0.1:${server.port}/`;

function chunkedStream(chunks: number, size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent === chunks) controller.close();
      else {
        sent++;
        controller.enqueue(new Uint8Array(size).fill(1));
      }
    },
  });
}

describe("readBody over HTTP", () => {
  test("a Content-Length body up to the limit is read whole", async () => {
    const response = await fetch(url(), { method: "POST", body: new Uint8Array(LIMIT).fill(2) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ length: LIMIT, sum: 2 * LIMIT });
  });

  test("an empty body is empty", async () => {
    const response = await fetch(url(), { method: "POST" });
    expect(await response.json()).toEqual({ length: 0, sum: 0 });
  });

  test("Content-Length over the limit is 413 before any body byte arrives", async () => {
    // The body is never sent: a server that tried to read it would wait, not answer.
    const response = await rawRequest(
      server.port!,
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${LIMIT + 1}\r\nConnection: close\r\n\r\n`,
    );
    expect(response.status).toBe(413);
    expect(response.body).toBe("Payload Too Large");
  });

  test("a chunked body within the limit is read whole", async () => {
    const response = await fetch(url(), {
      method: "POST",
      body: chunkedStream(4, 250),
      duplex: "half",
    } as RequestInit);
    expect(await response.json()).toEqual({ length: 1000, sum: 1000 });
  });

  test("a chunked body growing past the limit is 413 while the client is still sending", async () => {
    // 11 chunks announced, only 5 sent before waiting for the answer: the server must not wait for the rest.
    let head = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
    for (let i = 0; i < 5; i++) head += `fa\r\n${"x".repeat(250)}\r\n`;
    const response = await rawRequest(server.port!, head);
    expect(response.status).toBe(413);
    expect(response.body).toContain("Payload Too Large");
  });

  test("a body cut short by the client is a BadRequestError", async () => {
    lastError = null;
    const seen = new Promise<void>((resolve) => {
      errorSeen = resolve;
    });
    await rawRequest(
      server.port!,
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly a few bytes",
      200,
    );
    await Promise.race([seen, Bun.sleep(3000)]);
    expect(lastError).toBeInstanceOf(BadRequestError);
    expect((lastError as BadRequestError).message).toMatch(/cut short/);
  });
});

describe("readBody without a server", () => {
  test("a stream body past the limit is refused and its source cancelled", async () => {
    let pulled = 0;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(300));
      },
      cancel() {
        cancelled = true;
      },
    });
    const request = new Request("http://x/", { method: "POST", body, duplex: "half" } as RequestInit);
    await expect(readBody(request, LIMIT)).rejects.toMatchObject({
      status: 413,
      message: "Payload Too Large",
    });
    expect(pulled).toBeLessThanOrEqual(5);
    await Bun.sleep(10);
    expect(cancelled).toBe(true);
  });

  test("a stream that errors is a BadRequestError", async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(3));
        controller.error(new Error("connection reset"));
      },
    });
    const request = new Request("http://x/", { method: "POST", body, duplex: "half" } as RequestInit);
    await expect(readBody(request, LIMIT)).rejects.toBeInstanceOf(BadRequestError);
  });

  test("an invalid Content-Length is a BadRequestError", async () => {
    const request = new Request("http://x/", {
      method: "POST",
      body: "abc",
      headers: { "content-length": "3x" },
    });
    // Refused before reading: thrown, not a rejected promise (the dispatcher catches both).
    expect(() => readBody(request, LIMIT)).toThrow(BadRequestError);
  });

  test("a GET without a body is empty", async () => {
    expect((await readBody(new Request("http://x/"), LIMIT)).length).toBe(0);
  });

  test("reading twice is a programming error, not a 4xx", async () => {
    const request = new Request("http://x/", { method: "POST", body: "abc" });
    await readBody(request, LIMIT);
    let error: unknown = null;
    try {
      readBody(request, LIMIT);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(HttpError);
  });
});

describe("decodeBody", () => {
  test('empty bytes are ""', () => {
    expect(decodeBody(new Uint8Array(0))).toBe("");
  });
  test("valid UTF-8 is a string, BOM kept", () => {
    expect(decodeBody(new TextEncoder().encode("héllo €"))).toBe("héllo €");
    expect(decodeBody(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]))).toBe("\uFEFFa");
  });
  test("anything else stays bytes, the same bytes", () => {
    const bytes = new Uint8Array([0x61, 0xff, 0x00, 0xc3]);
    const decoded = decodeBody(bytes);
    expect(decoded).toBeInstanceOf(Uint8Array);
    expect(decoded).toEqual(bytes);
  });
});

for (const readTimeoutMs of [300, 0]) {
  const deadline =
    readTimeoutMs > 0 ? `a ${readTimeoutMs} ms read deadline` : "no read deadline (bodyReadTimeoutMs: 0)";
  describe(`readBody with the app's limits, ${deadline} (the native read, budget reserved up front)`, () => {
    const budget = new BodyBudget(4 * LIMIT);
    const limits = { budget, readTimeoutMs };
    let limited: Server<unknown>;
    let limitedError: unknown = null;
    let limitedErrorSeen: () => void = () => {};
    let inUseDuringRead = -1;

    beforeAll(() => {
      limited = Bun.serve({
        port: 0,
        hostname: "127.0.0.1",
        async fetch(request) {
          try {
            const body = readBody(request, LIMIT, limits);
            // The declared length is reserved before a byte is read, and given back after.
            inUseDuringRead = budget.inUse;
            const bytes = await body;
            return new Response(new TextDecoder().decode(bytes));
          } catch (error) {
            limitedError = error;
            limitedErrorSeen();
            if (error instanceof HttpError) return new Response(error.message, { status: error.status });
            return new Response("unexpected", { status: 500 });
          }
        },
      });
    });
    afterAll(() => {
      limited.stop(true);
    });

    test("a Content-Length body reserves its length while it is read and gives it back", async () => {
      const response = await fetch(`http://127.0.0.1:${limited.port}/`, {
        method: "POST",
        body: "0123456789",
      });
      expect(await response.text()).toBe("0123456789");
      expect(inUseDuringRead).toBe(10);
      expect(budget.inUse).toBe(0);
    });

    test("a body longer than its Content-Length: the handler gets exactly the declared bytes", async () => {
      // The rest is not this request's body: Bun parses it as the next request (and refuses it).
      const reply = await rawRequest(
        limited.port!,
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nabcdeEXTRA BYTES\r\n\r\n",
        500,
      );
      expect(reply.status).toBe(200);
      expect(reply.body.startsWith("abcde")).toBe(true);
      expect(reply.body).not.toContain("EXTRA");
      expect(budget.inUse).toBe(0);
    });

    if (readTimeoutMs > 0)
      test("a body shorter than its Content-Length that stalls is 408 after the read timeout, nothing kept", async () => {
        limitedError = null;
        const started = Date.now();
        const reply = await rawRequest(
          limited.port!,
          "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly a few bytes",
          2000,
        );
        expect(reply.status).toBe(408);
        expect(Date.now() - started).toBeGreaterThanOrEqual(250);
        expect((limitedError as HttpError).status).toBe(408);
        expect(budget.inUse).toBe(0);
      });
    else
      test("a stalled body gets no 408 and is cut short when the client leaves: 400, nothing kept", async () => {
        limitedError = null;
        const seen = new Promise<void>((resolve) => {
          limitedErrorSeen = resolve;
        });
        const reply = await rawRequest(
          limited.port!,
          "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly a few bytes",
          400,
        );
        expect(reply.status).not.toBe(408);
        await Promise.race([seen, Bun.sleep(3000)]);
        expect(limitedError).toBeInstanceOf(BadRequestError);
        expect((limitedError as BadRequestError).message).toMatch(/cut short/);
        expect(budget.inUse).toBe(0);
      });

    test("Content-Length over the limit is 413 before reading, and reserves nothing", async () => {
      const reply = await rawRequest(
        limited.port!,
        `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${LIMIT + 1}\r\nConnection: close\r\n\r\n`,
      );
      expect(reply.status).toBe(413);
      expect(budget.inUse).toBe(0);
    });

    test("a body that does not fit the in-flight total is 503 and reserves nothing", async () => {
      expect(budget.tryReserve(4 * LIMIT - 5)).toBe(true);
      try {
        const response = await fetch(`http://127.0.0.1:${limited.port}/`, {
          method: "POST",
          body: "0123456789",
        });
        expect(response.status).toBe(503);
        expect(budget.inUse).toBe(4 * LIMIT - 5);
      } finally {
        budget.release(4 * LIMIT - 5);
      }
      expect(budget.inUse).toBe(0);
    });

    const post = (text: string, length = String(text.length)) =>
      new Request("http://x/", { method: "POST", body: text, headers: { "content-length": length } });

    test("Content-Length values: digits (leading zeros, blanks around) pass; anything else is 400", () => {
      for (const bad of ["3x", "", " ", "+3", "-3", "3.0", "0x3", "3 3"]) {
        expect(() => readBody(post("abc", bad), LIMIT, limits)).toThrow(BadRequestError);
      }
      expect(budget.inUse).toBe(0);
      expect(readBody(post("abc", "0"), LIMIT, limits)).toEqual(new Uint8Array(0));
      expect(() => readBody(post("abc", "0001001"), LIMIT, limits)).toThrow(HttpError);
    });

    test("what comes after the read gets the bytes; what it throws goes to `fail`; what `fail` throws rejects", async () => {
      const next = (bytes: Uint8Array, carry: string) => `${carry}:${new TextDecoder().decode(bytes)}`;
      const fail = (error: unknown, carry: string) => `${carry} failed: ${(error as Error).message}`;
      expect(await readUnreadBody(post("abc"), LIMIT, limits, "route", next, fail)).toBe("route:abc");
      const throwing = () => {
        throw new Error("the handler threw");
      };
      expect(await readUnreadBody(post("abc"), LIMIT, limits, "route", throwing, fail)).toBe(
        "route failed: the handler threw",
      );
      const failing = () => {
        throw new Error("fail threw too");
      };
      await expect(readUnreadBody(post("abc"), LIMIT, limits, "route", throwing, failing)).rejects.toThrow(
        "fail threw too",
      );
      // Without any limits (readBody's callers outside the pipeline), the same read.
      expect(await readUnreadBody(post("xyz"), LIMIT, undefined, "bare", next, fail)).toBe("bare:xyz");
      expect(budget.inUse).toBe(0);
    });
  });
}

describe("the read deadline's tick", () => {
  test("a twentieth of the timeout, from 50 ms to 1 s: a 408 is at most two ticks late", () => {
    expect(deadlineTickMs(300)).toBe(50);
    expect(deadlineTickMs(1)).toBe(50);
    expect(deadlineTickMs(4000)).toBe(200);
    expect(deadlineTickMs(30_000)).toBe(1000);
    expect(deadlineTickMs(600_000)).toBe(1000);
  });
});
