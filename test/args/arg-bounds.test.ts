/**
 * Issue #14: `t` bounds (`min`, `max`, `minLength`, `maxLength`, `pattern`,
 * `oneOf`) and Standard Schema validators in `args`: enforced with a 400 that
 * names the argument, and reflected in OpenAPI.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { z } from "zod";
import { type ServerHandle, t, Webfw } from "../../src/index.ts";

let server: ServerHandle;
let spec: {
  paths: Record<
    string,
    { get: { parameters: { name: string; schema: Record<string, unknown>; required: boolean }[] } }
  >;
};

beforeAll(async () => {
  const app = new Webfw(import.meta.path);
  app.get("/items/:id", ({ args }) => args, {
    args: {
      id: t.int().min(1),
      page: t.int().min(1).max(100).default(1),
      q: t.str().minLength(2).maxLength(10),
      code: t.optional(t.str().pattern(/^[A-Z]{3}$/)),
      sort: t.str().oneOf(["asc", "desc"]).default("asc"),
      tags: t.list(t.str().maxLength(5)).maxLength(3),
      ratio: t.float().min(0).max(1).default(0.5),
    },
  });
  app.get("/zod/:id", ({ args }) => args, {
    args: {
      id: z.coerce.number().int().positive(),
      q: z.string().min(2),
      opt: z.string().optional(),
      color: z.enum(["red", "green"]).default("red"),
    },
  });
  server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false, handleSignals: false });
  spec = (await (await fetch(`${server.url}/openapi.json`)).json()) as typeof spec;
});
afterAll(() => server.stop(true));

const get = async (path: string) => {
  const res = await fetch(`${server.url}${path}`);
  return { status: res.status, body: await res.text() };
};

describe("t bounds", () => {
  test("values inside the bounds pass, typed", async () => {
    const res = await get("/items/3?q=hey&code=ABC&sort=desc&tags=a&tags=bb&ratio=0.25");
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({
      id: 3,
      page: 1,
      q: "hey",
      code: "ABC",
      sort: "desc",
      tags: ["a", "bb"],
      ratio: 0.25,
    });
  });

  const bad: Array<[string, string]> = [
    ["/items/0?q=hey", "argument 'id' must be at least 1, got 0"],
    ["/items/1?q=hey&page=101", "argument 'page' must be at most 100, got 101"],
    ["/items/1?q=h", "argument 'q' must be at least 2 characters long"],
    ["/items/1?q=hello-world", "argument 'q' must be at most 10 characters long"],
    ["/items/1?q=hey&code=abc", "argument 'code' must match ^[A-Z]{3}$"],
    ["/items/1?q=hey&sort=up", "argument 'sort' must be one of asc, desc, got 'up'"],
    ["/items/1?q=hey&tags=a&tags=b&tags=c&tags=d", "argument 'tags' must have at most 3 items"],
    ["/items/1?q=hey&tags=toolong", "argument 'tags' must be at most 5 characters long"],
    ["/items/1?q=hey&ratio=1.5", "argument 'ratio' must be at most 1, got 1.5"],
  ];
  for (const [path, message] of bad) {
    test(`${path}: 400 "${message}"`, async () => {
      expect(await get(path)).toEqual({ status: 400, body: message });
    });
  }

  test("reflected in OpenAPI", () => {
    const params = Object.fromEntries(
      spec.paths["/items/{id}"]?.get.parameters.map((p) => [p.name, p]) ?? [],
    );
    expect(params.id?.schema).toMatchObject({ type: "integer", minimum: 1 });
    expect(params.page?.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 1 });
    expect(params.q?.schema).toMatchObject({ type: "string", minLength: 2, maxLength: 10 });
    expect(params.code?.schema).toMatchObject({ type: "string", pattern: "^[A-Z]{3}$" });
    expect(params.sort?.schema).toMatchObject({ type: "string", enum: ["asc", "desc"] });
    expect(params.tags?.schema).toMatchObject({ type: "array", maxItems: 3, items: { maxLength: 5 } });
    expect(params.q?.required).toBe(true);
    expect(params.page?.required).toBeFalsy();
  });

  test("specs are immutable: a bound makes a copy", () => {
    const base = t.int();
    const bounded = base.min(5);
    expect(base.parse(["1"], "x")).toBe(1);
    expect(() => bounded.parse(["1"], "x")).toThrow("must be at least 5");
  });
});

describe("Standard Schema in args", () => {
  test("converted, coerced and typed", async () => {
    const res = await get("/zod/7?q=hi");
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ id: 7, q: "hi", color: "red" });
  });

  test("issues are a 400 naming the argument", async () => {
    const invalid = await get("/zod/-1?q=hi");
    expect(invalid.status).toBe(400);
    expect(invalid.body).toStartWith("argument 'id': ");
    const missing = await get("/zod/1");
    expect(missing.status).toBe(400);
    expect(missing.body).toStartWith("argument 'q': ");
    expect((await get("/zod/1?q=hi&color=blue")).status).toBe(400);
  });

  test("its JSON Schema documents the parameters", () => {
    const params = Object.fromEntries(spec.paths["/zod/{id}"]?.get.parameters.map((p) => [p.name, p]) ?? []);
    expect(params.q?.schema).toMatchObject({ type: "string", minLength: 2 });
    expect(params.q?.required).toBe(true);
    expect(params.opt?.required).toBeFalsy();
    expect(params.color?.schema).toMatchObject({ enum: ["red", "green"] });
  });

  test("something else in args is an error at registration", () => {
    const app = new Webfw(import.meta.path);
    expect(() => app.get("/x", () => "", { args: { n: 5 as never } })).toThrow(
      "args.n of GET /x is not a t.* spec or a Standard Schema validator",
    );
  });
});

// Types: `oneOf` narrows to the listed strings, a Standard Schema gives its output type.
export function typedArgs(app: Webfw): void {
  app.get(
    "/typed",
    ({ args }) => {
      const sort: "asc" | "desc" = args.sort;
      const id: number = args.id;
      const q: string = args.q;
      // @ts-expect-error: "up" is not one of the values
      const wrong: typeof args.sort = "up";
      return { sort, id, q, wrong };
    },
    { args: { sort: t.str().oneOf(["asc", "desc"]), id: z.coerce.number(), q: t.str().minLength(1) } },
  );
}
