/**
 * Handlers that fail in every way a handler can: each failure is that
 * request's 500 (or its HttpError status), concurrent requests are untouched,
 * and the server keeps serving.
 */
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { HttpError, type ServerHandle, Webfw } from "../../src/index.ts";
import { logger } from "../../src/log/logger.ts";
import { Results, startQuiet } from "../security/helpers.ts";
import { rawGet } from "../security/raw-client.ts";

const results = new Results("faults-handlers");
let server: ServerHandle;
let errorSpy: ReturnType<typeof spyOn>;

beforeAll(async () => {
  errorSpy = spyOn(logger, "error").mockImplementation(() => {});
  const app = new Webfw(import.meta.path);
  app.get("/ok/:n", ({ pathParams }) => ({ n: Number(pathParams.n) }));
  app.get("/throws", () => {
    throw new Error("sync failure");
  });
  app.get("/rejects", async () => {
    await Bun.sleep(5);
    throw new Error("async failure");
  });
  app.get("/throws-string", () => {
    throw "a string";
  });
  app.get("/throws-null", () => {
    throw null;
  });
  app.get("/http-error", () => {
    throw new HttpError(409, "conflict");
  });
  app.get("/stack-overflow", () => {
    const recurse = (n: number): number => recurse(n + 1) + 1;
    return recurse(0);
  });
  app.get("/bad-return", () => ({
    toJSON: () => {
      throw new Error("cannot serialise");
    },
  }));
  app.get("/cyclic", () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    return a;
  });
  app.get("/bigint", () => ({ n: 10n }));
  app.get("/stream-fails", () =>
    (async function* () {
      yield "first chunk\n";
      throw new Error("stream failed midway");
    })(),
  );
  app.get("/after-throws", () => "fine");
  app.afterRequest("/after-throws", () => {
    throw new Error("after failed");
  });
  server = await startQuiet(app);
});
afterAll(async () => {
  errorSpy.mockRestore();
  await server.stop(true);
  results.write();
});

const FAILURES: [string, number][] = [
  ["/throws", 500],
  ["/rejects", 500],
  ["/throws-string", 500],
  ["/throws-null", 500],
  ["/http-error", 409],
  ["/stack-overflow", 500],
  ["/bad-return", 500],
  ["/cyclic", 500],
  ["/bigint", 500],
  ["/after-throws", 500],
];

describe("a failing handler fails only its own request", () => {
  for (const [path, status] of FAILURES) {
    test(path, async () => {
      const reply = await rawGet(server.port, path);
      expect(reply.status).toBe(status);
      if (status === 500) expect(reply.body).toBe("Internal Server Error");
      const after = await rawGet(server.port, "/ok/1");
      expect(after.status).toBe(200);
      results.add({
        group: "handler faults",
        input: `handler ${path.slice(1)}`,
        outcome: String(reply.status),
        survived: after.status === 200,
      });
    });
  }

  test("a stream that fails midway: the client gets the first chunk and a cut connection, the server carries on", async () => {
    // Bun may flush the headers and first chunk, or reset the connection before: either way the client sees a failure.
    let failed = false;
    try {
      const response = await fetch(`${server.url}/stream-fails`);
      await response.text();
    } catch {
      failed = true;
    }
    expect(failed).toBe(true);
    expect((await rawGet(server.port, "/ok/2")).status).toBe(200);
    results.add({
      group: "handler faults",
      input: "async generator throws after the first chunk",
      outcome: "connection cut (no silent truncation)",
      survived: true,
    });
  });

  test("400 concurrent requests, one in two failing: every good one succeeds with its own answer", async () => {
    const paths = Array.from({ length: 400 }, (_, i) =>
      i % 2 === 0 ? `/ok/${i}` : (FAILURES[i % FAILURES.length]?.[0] ?? "/throws"),
    );
    const responses = await Promise.all(
      paths.map((p) =>
        fetch(`${server.url}${p}`).then(async (r) => ({ status: r.status, body: await r.text() })),
      ),
    );
    responses.forEach((response, i) => {
      if (i % 2 === 0) {
        expect(response.status).toBe(200);
        expect(JSON.parse(response.body)).toEqual({ n: i });
      } else expect(response.status).toBeGreaterThanOrEqual(400);
    });
    results.add({
      group: "handler faults",
      input: "400 concurrent requests, half failing",
      outcome: "200 good ones correct, failures isolated",
      survived: true,
    });
  });
});
