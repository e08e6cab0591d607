/**
 * Background tasks of streamed answers (docs/events.md: "runs after the response is sent"): a
 * generator, `sse()` or a ReadableStream delays the request's tasks until its body is over, read
 * to the end, cut by the client, or dropped by HEAD; a text answer's tasks still start at once.
 * Over real HTTP, inline and with the handler offloaded to a Worker.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ServerHandle, sse, Webfw } from "../../src/index.ts";

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(10);
  }
}

const events: string[] = [];
let gate = Promise.withResolvers<void>();
let server: ServerHandle;

beforeAll(async () => {
  const app = new Webfw(import.meta.path, { requestId: true });
  // Yields one chunk, waits for the test's gate, yields the last; the task logs when it runs.
  app.get("/gated", (request) => {
    request.background(() => {
      events.push("task");
    });
    return (async function* () {
      try {
        yield "first\n";
        events.push("first sent");
        await gate.promise;
        yield "last\n";
        events.push("last sent");
      } finally {
        events.push("generator closed");
      }
    })();
  });
  app.get("/events", (request) => {
    request.background(() => {
      events.push("sse task");
    });
    return sse(
      (async function* () {
        yield { n: 1 };
        await Bun.sleep(50);
        yield { n: 2 };
        events.push("sse done");
      })(),
    );
  });
  app.get("/readable", (request) => {
    request.background(() => {
      events.push("readable task");
    });
    let n = 0;
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        n++;
        await Bun.sleep(20);
        if (n > 3) {
          events.push("readable done");
          controller.close();
        } else controller.enqueue(new TextEncoder().encode(`${n}`));
      },
    });
  });
  // Behind an after-middleware the answer goes through webfw's Response, still streamed.
  app.get(
    "/wrapped",
    (request) => {
      request.background(() => {
        events.push("wrapped task");
      });
      return (async function* () {
        yield "a";
        await Bun.sleep(50);
        yield "b";
        events.push("wrapped done");
      })();
    },
    {},
  );
  app.afterRequest((response) => {
    response.headers.set("x-after", "1");
  });
  app.get("/text", (request) => {
    request.background(() => {
      events.push("text task");
    });
    return "text";
  });
  app.get("/failing", (request) => {
    request.background(() => {
      events.push("failing task");
    });
    return (async function* () {
      yield "partial";
      await Bun.sleep(20);
      throw new Error("the source broke");
    })();
  });
  server = await app.start({ port: 0, accessLog: false });
});

afterAll(async () => {
  gate.resolve();
  await server.stop();
});

describe("streamed answers hold their tasks until the body is over", () => {
  test("a generator: the task waits while the client reads, and runs after the last chunk", async () => {
    events.length = 0;
    gate = Promise.withResolvers<void>();
    const response = await fetch(`${server.url}/gated`);
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    expect(text).toBe("first\n");
    await until(() => events.includes("first sent"));
    await Bun.sleep(100);
    // The body is still open: the task has not run.
    expect(events).toEqual(["first sent"]);
    gate.resolve();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      text += decoder.decode(chunk.value);
    expect(text).toBe("first\nlast\n");
    await until(() => events.includes("task"));
    expect(events).toEqual(["first sent", "last sent", "generator closed", "task"]);
  });

  test("the client leaves mid-stream: the generator is closed and the task runs", async () => {
    events.length = 0;
    gate = Promise.withResolvers<void>();
    const controller = new AbortController();
    const response = await fetch(`${server.url}/gated`, { signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("first\n");
    controller.abort();
    // The cancel reaches the body while the generator still waits on the gate: the task runs now.
    await until(() => events.includes("task"));
    expect(events).toEqual(["first sent", "task"]);
    // The generator's return() takes effect at its next yield: it never sends the last chunk.
    gate.resolve();
    await until(() => events.includes("generator closed"));
    expect(events).not.toContain("last sent");
  });

  test("HEAD drops the streamed body: the generator is stopped and the task runs", async () => {
    events.length = 0;
    gate = Promise.withResolvers<void>();
    const response = await fetch(`${server.url}/gated`, { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");
    await until(() => events.includes("task"));
    expect(events).not.toContain("last sent");
    gate.resolve();
  });

  test("sse(): the task runs after the last event", async () => {
    events.length = 0;
    const response = await fetch(`${server.url}/events`);
    expect(response.headers.get("content-type")).toStartWith("text/event-stream");
    const body = await response.text();
    expect(body).toContain('data: {"n":2}');
    await until(() => events.includes("sse task"));
    expect(events.indexOf("sse done")).toBeLessThan(events.indexOf("sse task"));
  });

  test("a ReadableStream: the task runs after the stream closed", async () => {
    events.length = 0;
    const response = await fetch(`${server.url}/readable`);
    expect(await response.text()).toBe("123");
    await until(() => events.includes("readable task"));
    expect(events).toEqual(["readable done", "readable task"]);
  });

  test("behind an after-middleware the body still streams and the task still waits", async () => {
    events.length = 0;
    const response = await fetch(`${server.url}/wrapped`);
    expect(response.headers.get("x-after")).toBe("1");
    expect(await response.text()).toBe("ab");
    await until(() => events.includes("wrapped task"));
    expect(events).toEqual(["wrapped done", "wrapped task"]);
  });

  test("a source that fails mid-stream: the client sees a cut body, the task still runs", async () => {
    events.length = 0;
    const response = await fetch(`${server.url}/failing`);
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
    await until(() => events.includes("failing task"));
  });

  test("a text answer's tasks start at once, as before", async () => {
    events.length = 0;
    const response = await fetch(`${server.url}/text`);
    expect(await response.text()).toBe("text");
    await until(() => events.includes("text task"));
  });
});

describe("an offloaded streamed answer (--workers 2)", () => {
  const file = join(tmpdir(), `webfw-streamed-task-${process.pid}-${Date.now()}.log`);
  let workers: ServerHandle;
  beforeAll(async () => {
    process.env.WEBFW_STREAMED_TASK_LOG = file;
    workers = await (await import("./fixtures/streamed-offload.ts")).default.start({
      port: 0,
      workers: 2,
      accessLog: false,
    });
  });
  afterAll(async () => {
    await workers.stop();
    rmSync(file, { force: true });
  });

  test("the task runs on the Worker after the generator's last chunk", async () => {
    const response = await fetch(`${workers.url}/offloaded`);
    expect(await response.text()).toBe("one\ntwo\n");
    await until(() => existsSync(file) && readFileSync(file, "utf8").includes("task"));
    expect(readFileSync(file, "utf8").trim().split("\n")).toEqual(["two produced", "task on a worker"]);
  });
});
