import { describe, expect, expectTypeOf, test } from "bun:test";
import { t, Webfw } from "../../src/index.ts";
import type { Body, PathParams, RequestMethod } from "../../src/types.ts";

// These checks run in `tsc --noEmit` (CI): a wrong inference fails the type check.
describe("inference", () => {
  test("path parameter names come from the path literal", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/users/:id/files/*rest", ({ pathParams }) => {
      expectTypeOf(pathParams).toEqualTypeOf<{ id: string; rest: string }>();
      // @ts-expect-error: no such parameter
      pathParams.nope;
      return `${pathParams.id}:${pathParams.rest}`;
    });
    expect(await (await app.request("/users/1/files/a/b")).text()).toBe("1:a/b");
  });

  test("args are typed by their specs", async () => {
    const app = new Webfw(import.meta.path);
    app.get(
      "/search",
      ({ args }) => {
        expectTypeOf(args.q).toEqualTypeOf<string>();
        expectTypeOf(args.page).toEqualTypeOf<number>();
        expectTypeOf(args.tags).toEqualTypeOf<string[]>();
        expectTypeOf(args.exact).toEqualTypeOf<boolean | undefined>();
        return args;
      },
      { args: { q: t.str(), page: t.int().default(1), tags: t.list(t.str()), exact: t.optional(t.bool()) } },
    );
    expect(await (await app.request("/search?q=x")).json()).toEqual({ q: "x", page: 1, tags: [] });
  });

  test("t.object bodies are typed", async () => {
    const app = new Webfw(import.meta.path);
    app.post(
      "/b",
      ({ parsedBody }) => {
        expectTypeOf(parsedBody).toEqualTypeOf<{ a: number; b: string[] }>();
        return parsedBody.a + parsedBody.b.length;
      },
      { body: t.object({ a: t.int(), b: t.list(t.str()) }) },
    );
    const response = await app.request("/b", { method: "POST", body: '{"a":2,"b":["x"]}' });
    expect(await response.text()).toBe("3");
  });

  test("spec aliases", () => {
    const method: RequestMethod = "PATCH";
    const body: Body = new Uint8Array(1);
    const params: PathParams = { id: "1" };
    expect([method, body.length, params.id]).toEqual(["PATCH", 1, "1"]);
  });
});
