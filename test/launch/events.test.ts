import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Webfw } from "../../src/index.ts";

describe("lifecycle events", () => {
  test("startup handlers (sync and async, as call or wrapper) complete before serving", async () => {
    const events: string[] = [];
    const app = new Webfw(import.meta.path);
    app.startupHandler(() => {
      events.push("sync startup");
    });
    const wrapped = app.startupHandler(async function warmUp() {
      await Bun.sleep(30);
      events.push("async startup");
    });
    expect(wrapped.name).toBe("warmUp");
    app.get("/", () => events.join(","));
    const server = await app.start({ port: 0 });
    try {
      expect(await (await fetch(server.url)).text()).toBe("sync startup,async startup");
    } finally {
      await server.stop();
    }
  });

  test("stop() waits for an in-flight slow request, then runs shutdown handlers", async () => {
    const events: string[] = [];
    const app = new Webfw(import.meta.path);
    app.get("/slow", async () => {
      await Bun.sleep(300);
      events.push("slow done");
      return "finished";
    });
    app.shutdownHandler(async () => {
      await Bun.sleep(5);
      events.push("shutdown");
    });
    const server = await app.start({ port: 0 });
    const inFlight = fetch(`${server.url}/slow`);
    await Bun.sleep(50);
    const stopped = server.stop();
    const response = await inFlight;
    expect([response.status, await response.text()]).toEqual([200, "finished"]);
    await stopped;
    expect(events).toEqual(["slow done", "shutdown"]);
    await expect(fetch(`${server.url}/slow`)).rejects.toThrow();
  });

  test("the drain has a timeout", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/hang", () => new Promise(() => {}));
    const server = await app.start({ port: 0, drainTimeoutMs: 100 });
    const hanging = fetch(`${server.url}/hang`).catch((error: Error) => error);
    await Bun.sleep(30);
    const started = performance.now();
    await server.stop();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await hanging).toBeInstanceOf(Error);
  });

  test("SIGTERM drains in-flight requests and runs shutdown handlers", async () => {
    const script = join(import.meta.dir, "..", "fixtures", "graceful-app.ts");
    const child = Bun.spawn(["bun", script], {
      stdout: "pipe",
      stderr: "inherit",
      env: { ...process.env, PORT: "0" },
    });
    const reader = child.stdout.getReader();
    let output = "";
    while (!output.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      output += new TextDecoder().decode(value);
    }
    const url = output.trim().split(" ").at(-1) as string;
    const slow = fetch(`${url}/slow`);
    await Bun.sleep(100);
    child.kill("SIGTERM");
    const response = await slow;
    expect(await response.text()).toBe("slow finished");
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      output += new TextDecoder().decode(value);
    }
    expect(await child.exited).toBe(0);
    expect(output).toContain("shutdown handler ran");
  });
});
