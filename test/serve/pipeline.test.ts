/**
 * The pipeline builder (src/serve/dispatch.ts, docs/architecture.md "The pipeline"): steps composed
 * at start, synchronous until a step's value is thenable, one response form for values and errors,
 * and a handler without parameters that gets no `Request`.
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_FORM_LIMITS } from "../../src/body/forms.ts";
import { Request, Response, Webfw } from "../../src/index.ts";
import type { AfterMiddleware, BeforeMiddleware } from "../../src/router/middleware.ts";
import { builtInPlan, compileRoute, type PipelineConfig } from "../../src/serve/dispatch.ts";

const logged: unknown[] = [];
const config: PipelineConfig = {
  maxBodySize: 1 << 20,
  formLimits: DEFAULT_FORM_LIMITS,
  requestHeaders: [],
  responseHeaders: [],
  excludedHeaderPaths: new Set(),
  globalDependencies: {},
  exceptionHandler: null,
  logError: (error) => logged.push(error),
  dev: false,
};

function dispatcher(
  handler: (request: Request) => unknown,
  before: BeforeMiddleware[] = [],
  after: AfterMiddleware[] = [],
  settings: Partial<PipelineConfig> = {},
) {
  return compileRoute(builtInPlan("/", "GET", handler, before, after), { ...config, ...settings });
}

const get = () => new globalThis.Request("http://localhost/");

/** A thenable that is not a `Promise`: the promise rule awaits it all the same. */
function thenable<T>(value: T): PromiseLike<T> {
  // biome-ignore lint/suspicious/noThenProperty: a thenable is what this test is about
  return { then: (resolve, reject) => Promise.resolve(value).then(resolve, reject) };
}

describe("synchronous until a step's value is thenable", () => {
  test("one before- and one after-middleware, all plain values: a Response, not a promise", async () => {
    const dispatch = dispatcher(
      () => "hello",
      [() => undefined],
      [
        (response) => {
          response.headers.set("x-after", "1");
        },
      ],
    );
    const answer = dispatch(get(), null, {});
    expect(answer).toBeInstanceOf(globalThis.Response);
    const response = answer as globalThis.Response;
    expect(response.headers.get("x-after")).toBe("1");
    expect(await response.text()).toBe("hello");
  });

  test("an after-middleware returning a Web response stays synchronous too", async () => {
    const dispatch = dispatcher(() => "hello", [], [() => new globalThis.Response("web", { status: 201 })]);
    const answer = dispatch(get(), null, {});
    expect(answer).toBeInstanceOf(globalThis.Response);
    expect((answer as globalThis.Response).status).toBe(201);
    expect(await (answer as globalThis.Response).text()).toBe("web");
  });

  test("a thenable that is not a Promise is awaited, wherever it is returned", async () => {
    const seen: string[] = [];
    const dispatch = dispatcher(
      (request) => thenable(`hello ${request.method}`),
      [
        (request) => {
          seen.push("before");
          // The type says Promise; any thenable is awaited (the promise rule).
          return thenable(new Request(request.raw, {})) as unknown as Promise<Request>;
        },
      ],
      [
        (response) =>
          thenable(new Response(202, {}, `${response.description} after`)) as unknown as Promise<Response>,
      ],
    );
    const answer = dispatch(get(), null, {});
    expect(answer).toBeInstanceOf(Promise);
    const response = await answer;
    expect(seen).toEqual(["before"]);
    expect(response.status).toBe(202);
    expect(await response.text()).toBe("hello GET after");
  });

  test("a before-middleware's response is sent at once: no handler, no after-middleware", async () => {
    let ran = false;
    const dispatch = dispatcher(
      () => {
        ran = true;
        return "no";
      },
      [() => new Response(403, {}, "stop")],
      [(response) => new Response(500, {}, `changed ${response.description}`)],
    );
    const response = (await dispatch(get(), null, {})) as globalThis.Response;
    expect(ran).toBe(false);
    expect(response.status).toBe(403);
    expect(await response.text()).toBe("stop");
  });
});

describe("errors take the route's way", () => {
  test("an error after a middleware replaced the request is answered for the new request", async () => {
    let handled: Request | null = null;
    const replaced = new Request(new globalThis.Request("http://localhost/replaced"), {});
    const dispatch = dispatcher(
      () => {
        throw new Error("boom");
      },
      [() => replaced],
      [],
      {
        exceptionHandler: (_error, request) => {
          handled = request;
          return "handled";
        },
      },
    );
    const response = await dispatch(get(), null, {});
    expect(await response.text()).toBe("handled");
    expect(handled === replaced).toBe(true);
  });

  test("a sync throw in an after-middleware: the error answer goes through the after-middlewares", async () => {
    let calls = 0;
    const dispatch = dispatcher(
      () => "hello",
      [],
      [
        (response) => {
          calls++;
          if (response.statusCode === 200) throw new Error("after failed");
          response.headers.set("x-seen", String(response.statusCode));
        },
      ],
    );
    const response = await dispatch(get(), null, {});
    expect(calls).toBe(2);
    expect(response.status).toBe(500);
    expect(response.headers.get("x-seen")).toBe("500");
  });

  test("an after-middleware that fails on the error's answer too: the default answer, without them", async () => {
    const dispatch = dispatcher(
      () => "hello",
      [],
      [
        () => {
          throw new Error("always");
        },
      ],
    );
    const response = await dispatch(get(), null, {});
    expect(response.status).toBe(500);
    expect(await response.text()).toBe("Internal Server Error");
  });

  test("a rejected thenable from the handler is the error", async () => {
    const dispatch = dispatcher(() => thenable(Promise.reject(new Error("no"))));
    const response = await dispatch(get(), null, {});
    expect(response.status).toBe(500);
  });

  test("the route's time limit races a thenable too", async () => {
    const dispatch = compileRoute(
      {
        ...builtInPlan("/", "GET", () => thenable(Bun.sleep(500).then(() => "late")), [], []),
        timeoutMs: 20,
      },
      config,
    );
    const response = await dispatch(get(), null, {});
    expect(response.status).toBe(503);
  });
});

describe("a handler declared without parameters", () => {
  test("gets no Request; its error still reaches the exception handler with one", async () => {
    const app = new Webfw(import.meta.path);
    let handled: Request | null = null;
    app.exception((_error, request) => {
      handled = request;
      return ["handled", 418];
    });
    app.get("/", () => "hello");
    app.get("/fail", () => {
      throw new Error("boom");
    });
    app.get("/async-fail", async () => {
      await Bun.sleep(1);
      throw new Error("late boom");
    });
    const ok = await app.request("/");
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe("hello");
    const failed = await app.request("/fail");
    expect(failed.status).toBe(418);
    expect((handled as Request | null)?.url.path).toBe("/fail");
    const late = await app.request("/async-fail");
    expect(late.status).toBe(418);
    expect((handled as Request | null)?.url.path).toBe("/async-fail");
  });

  test("a rest parameter, a default or `arguments` still get the request", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/rest", (...args: Request[]) => args[0]?.url.path ?? "none");
    app.get("/default", (request: Request | null = null) => request?.url.path ?? "none");
    app.get("/arguments", function () {
      // biome-ignore lint/complexity/noArguments: what this test is about
      return (arguments[0] as Request | undefined)?.url.path ?? "none";
    });
    app.get(
      "/bound",
      ((prefix: string, request: Request) => `${prefix}${request.url.path}`).bind(null, "p:"),
    );
    for (const path of ["/rest", "/default", "/arguments"])
      expect(await (await app.request(path)).text()).toBe(path);
    expect(await (await app.request("/bound")).text()).toBe("p:/bound");
  });
});
