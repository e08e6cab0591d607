/** `redirect(url, status = 302)` (issue 31): a real server on port 0, curl-free (fetch with `redirect: "manual"`). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { redirect, type ServerHandle, Webfw } from "../../src/index.ts";

let plain: ServerHandle;
let withAfter: ServerHandle;

function routes(app: Webfw): void {
  app.get("/default", () => redirect("/target"));
  app.get("/target", () => "arrived");
  app.post("/form", () => redirect("/done", 303).setCookie("sid", "abc", { httpOnly: true }));
  app.get("/absolute", () => redirect(new URL("https://elsewhere.example/a?b=1"), 308));
  app.get("/encoded", () => redirect("/café menu?q=a b&ok=%20", 307));
  app.get("/relative", () => redirect("../up", 301));
  // A Web response with no body, by hand: after-middlewares must not give it an empty text/plain either.
  app.get("/web", () => new globalThis.Response(null, { status: 302, headers: { location: "/target" } }));
}

beforeAll(async () => {
  const app = new Webfw(import.meta.path);
  routes(app);
  plain = await app.start({ port: 0 });
  const after = new Webfw(import.meta.path);
  routes(after);
  after.afterRequest((response) => {
    response.headers.set("x-after", "seen");
    return response;
  });
  withAfter = await after.start({ port: 0 });
});
afterAll(async () => {
  await plain.stop();
  await withAfter.stop();
});

const manual = (url: string, init: RequestInit = {}) => fetch(url, { ...init, redirect: "manual" });

for (const [label, server] of [
  ["no after-middleware", () => plain],
  ["behind an after-middleware", () => withAfter],
] as const) {
  describe(`redirect() ${label}`, () => {
    test("302 by default, Location set, no body and no content type", async () => {
      const response = await manual(`${server().url}/default`);
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe("/target");
      expect(response.headers.get("content-type")).toBeNull();
      expect(response.headers.get("content-length")).toBe("0");
      expect(await response.text()).toBe("");
      if (label !== "no after-middleware") expect(response.headers.get("x-after")).toBe("seen");
      // A client that follows it arrives.
      expect(await (await fetch(`${server().url}/default`)).text()).toBe("arrived");
    });

    test("303 after a POST keeps a cookie set on it; the client follows with a GET", async () => {
      const response = await manual(`${server().url}/form`, { method: "POST", body: "x" });
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe("/done");
      expect(response.headers.get("set-cookie")).toBe("sid=abc; Path=/; HttpOnly");
    });

    test("absolute URL object, 308; relative path, 301", async () => {
      const absolute = await manual(`${server().url}/absolute`);
      expect([absolute.status, absolute.headers.get("location")]).toEqual([
        308,
        "https://elsewhere.example/a?b=1",
      ]);
      const relative = await manual(`${server().url}/relative`);
      expect([relative.status, relative.headers.get("location")]).toEqual([301, "../up"]);
    });

    test("spaces and non-ASCII are percent-encoded, existing escapes kept", async () => {
      const response = await manual(`${server().url}/encoded`);
      expect(response.status).toBe(307);
      expect(response.headers.get("location")).toBe("/caf%C3%A9%20menu?q=a%20b&ok=%20");
    });

    test("a Web response with a null body keeps no body and no content type", async () => {
      const response = await manual(`${server().url}/web`);
      expect([response.status, response.headers.get("location")]).toEqual([302, "/target"]);
      expect(response.headers.get("content-type")).toBeNull();
    });

    test("HEAD gets the same head", async () => {
      const response = await manual(`${server().url}/default`, { method: "HEAD" });
      expect([response.status, response.headers.get("location")]).toEqual([302, "/target"]);
    });
  });
}

describe("redirect() refuses", () => {
  test("a status that is not a redirect", () => {
    for (const status of [200, 300, 304, 305, 306, 400, 3020]) {
      expect(() => redirect("/x", status as 302)).toThrow(
        `redirect status must be one of 301, 302, 303, 307, 308, got ${status}`,
      );
    }
  });

  test("an empty URL, CR/LF and other control characters", () => {
    expect(() => redirect("")).toThrow("redirect needs a URL");
    expect(() => redirect("/x\r\nset-cookie: a=b")).toThrow("redirect URL has a control character");
    expect(() => redirect("/x\u0000")).toThrow("redirect URL has a control character");
  });

  test("in-process: app.request sees the same answer", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/go", () => redirect("/there"));
    const response = await app.request("/go");
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/there");
    expect(response.headers.get("content-type")).toBeNull();
  });
});
