/**
 * The walk of a request with one before- and one after-middleware (docs/architecture.md, "One
 * request"): the framework files on the stack at each point the application's code runs. Bun's
 * router calls serve/native-routes.ts, which calls the route's dispatcher in serve/dispatch.ts;
 * the before-middleware, the handler and the after-middleware are all called from there, each
 * file entered once (no file appears twice on a stack with another between).
 */
import { expect, test } from "bun:test";
import { Webfw } from "../../src/index.ts";

const SRC = /\/src\/([\w/.-]+\.ts):\d+/;

/** The src/ files of a stack, innermost first, consecutive frames of one file collapsed. */
function srcFiles(stack: string | undefined): string[] {
  const files: string[] = [];
  for (const line of (stack ?? "").split("\n")) {
    const file = SRC.exec(line)?.[1];
    if (file !== undefined && files[files.length - 1] !== file) files.push(file);
  }
  return files;
}

test("one before and one after middleware: native-routes.ts, then dispatch.ts, each entered once", async () => {
  const stacks: Record<string, string[]> = {};
  const app = new Webfw(import.meta.path);
  app.beforeRequest(() => {
    stacks.before = srcFiles(new Error("probe").stack);
  });
  app.afterRequest((response) => {
    stacks.after = srcFiles(new Error("probe").stack);
    response.headers.set("x-after", "1");
  });
  app.get("/", () => {
    stacks.handler = srcFiles(new Error("probe").stack);
    return "hello";
  });
  // The access log is a layer of its own (log/access-log.ts): off, as in the benchmark.
  const server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 100;
  try {
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-after")).toBe("1");
    expect(await response.text()).toBe("hello");
  } finally {
    Error.stackTraceLimit = limit;
    await server.stop(true);
  }
  const walk = new Set(["serve/dispatch.ts", "serve/native-routes.ts"]);
  expect(Object.keys(stacks).sort()).toEqual(["after", "before", "handler"]);
  for (const files of Object.values(stacks)) {
    // The application's code is called from the route's dispatcher...
    expect(files[0]).toBe("serve/dispatch.ts");
    // ...and nothing else of the framework is below it but Bun's route entry (a call in tail
    // position leaves no frame: strict-mode code has proper tail calls in JavaScriptCore).
    for (const file of files) expect(walk.has(file)).toBe(true);
    // Each file entered once: no file comes back after another one.
    expect(new Set(files).size).toBe(files.length);
  }
});
