import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import app from "../../examples/workers.ts";
import type { ServerHandle } from "../../src/index.ts";

describe("examples/workers.ts (--workers 2)", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await app.start({ port: 0, workers: 2 });
  });
  afterAll(() => server.stop());

  test("an offloaded handler runs on a Worker with its dependencies and the request's state", async () => {
    const response = await fetch(`${server.url}/hash?text=abc&rounds=1`);
    const body = (await response.json()) as { digest: string; onWorker: boolean; requestedAt: number };
    expect(response.status).toBe(200);
    expect(body.digest).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(body.onWorker).toBe(true);
    expect(typeof body.requestedAt).toBe("number");
  });

  test("routes without offload stay on the main thread and share its state", async () => {
    const first = await (await fetch(`${server.url}/visits`)).json();
    const second = await (await fetch(`${server.url}/visits`)).json();
    expect((second as { visits: number }).visits).toBe((first as { visits: number }).visits + 1);
  });

  test("an SSE answer from a Worker streams its events", async () => {
    const response = await fetch(`${server.url}/report?steps=2`);
    expect(response.headers.get("content-type")).toStartWith("text/event-stream");
    const text = await response.text();
    expect(text).toContain('data: {"step":1,"of":2,"onWorker":true}');
    expect(text).toContain('data: {"step":2,"of":2,"onWorker":true}');
  });

  test("bad input is a 400", async () => {
    expect((await fetch(`${server.url}/hash?text=abc&rounds=x`)).status).toBe(400);
  });
});
