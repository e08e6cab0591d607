import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { z } from "zod";
import { ArgError, t, Webfw } from "../../src/index.ts";
import { CLIENTS, type Client } from "../helpers/clients.ts";

function argsApp(): Webfw {
  const app = new Webfw(import.meta.path);
  app.get("/items/:id", ({ args }) => args, {
    args: {
      id: t.int(),
      tags: t.list(t.str()),
      verbose: t.bool().default(false),
      q: t.optional(t.str()),
      ratio: t.float().default(1.5),
    },
  });
  app.get("/need", ({ args }) => ({ n: args.n }), { args: { n: t.int() } });
  app.get("/nums", ({ args }) => args.values, { args: { values: t.list(t.int()) } });
  app.post("/zod", ({ parsedBody }) => ({ hello: parsedBody.name, age: parsedBody.age }), {
    body: z.object({ name: z.string().min(1), age: z.number().int().nonnegative() }),
  });
  app.post("/tobj", ({ parsedBody }) => parsedBody, {
    body: t.object({ title: t.str(), count: t.int().default(1), tags: t.list(t.str()) }),
  });
  return app;
}

for (const [kind, makeClient] of CLIENTS) {
  describe(`typed arguments (${kind})`, () => {
    let client: Client;
    beforeAll(async () => {
      client = await makeClient(argsApp());
    });
    afterAll(() => client.close());

    test("path and query arguments are converted", async () => {
      const response = await client.fetch("/items/5?tags=a&tags=b&verbose=yes&q=find&ratio=2.25");
      expect(await response.json()).toEqual({
        id: 5,
        tags: ["a", "b"],
        verbose: true,
        q: "find",
        ratio: 2.25,
      });
    });

    test("defaults and absent optionals", async () => {
      const response = await client.fetch("/items/5");
      expect(await response.json()).toEqual({ id: 5, tags: [], verbose: false, ratio: 1.5 });
    });

    test("bool accepts exactly true/false 1/0 yes/no on/off (the spellings OpenAPI documents)", async () => {
      for (const [raw, value] of [
        ["true", true],
        ["0", false],
        ["on", true],
        ["off", false],
        ["no", false],
        ["1", true],
      ]) {
        const response = await client.fetch(`/items/1?verbose=${raw}`);
        expect((await response.json()).verbose).toBe(value);
      }
      const bad = await client.fetch("/items/1?verbose=maybe");
      expect(bad.status).toBe(400);
      expect(await bad.text()).toContain("'verbose'");
      // Another case is not a documented spelling.
      expect((await client.fetch("/items/1?verbose=NO")).status).toBe(400);
    });

    test("a missing required argument is a 400 naming it", async () => {
      const response = await client.fetch("/need");
      expect(response.status).toBe(400);
      expect(response.headers.get("content-type")).toBe("text/plain;charset=utf-8");
      expect(await response.text()).toBe("missing required argument 'n'");
    });

    test("values that do not convert are 400s", async () => {
      for (const raw of ["12abc", "1.5", "", "0x10", "99999999999999999999"]) {
        const response = await client.fetch(`/need?n=${encodeURIComponent(raw)}`);
        expect(response.status).toBe(400);
        expect(await response.text()).toContain("argument 'n' must be an integer");
      }
      const badPath = await client.fetch("/items/abc");
      expect(badPath.status).toBe(400);
      expect(await badPath.text()).toContain("'id'");
      const badFloat = await client.fetch("/items/1?ratio=fast");
      expect(badFloat.status).toBe(400);
      const badList = await client.fetch("/nums?values=1&values=x");
      expect(badList.status).toBe(400);
      expect(await (await client.fetch("/nums?values=1&values=-2")).json()).toEqual([1, -2]);
    });

    test("Standard Schema body (zod): valid → parsedBody, invalid → 422 with issues", async () => {
      const ok = await client.fetch("/zod", {
        method: "POST",
        body: JSON.stringify({ name: "Ada", age: 36 }),
      });
      expect(await ok.json()).toEqual({ hello: "Ada", age: 36 });
      const bad = await client.fetch("/zod", { method: "POST", body: JSON.stringify({ name: "", age: -1 }) });
      expect(bad.status).toBe(422);
      const body = await bad.json();
      expect(body.detail).toBe("Unprocessable Entity");
      expect(body.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(["age", "name"]);
      const notJson = await client.fetch("/zod", { method: "POST", body: "{" });
      expect(notJson.status).toBe(400);
    });

    test("t.object body", async () => {
      const ok = await client.fetch("/tobj", {
        method: "POST",
        body: JSON.stringify({ title: "x", tags: ["a"] }),
      });
      expect(await ok.json()).toEqual({ title: "x", count: 1, tags: ["a"] });
      const bad = await client.fetch("/tobj", {
        method: "POST",
        body: JSON.stringify({ count: "many", tags: "a" }),
      });
      expect(bad.status).toBe(422);
      const issues = (await bad.json()).issues as { path: string; message: string }[];
      expect(issues.map((issue) => issue.path)).toEqual(["title", "count", "tags"]);
      const array = await client.fetch("/tobj", { method: "POST", body: "[]" });
      expect(array.status).toBe(422);
    });
  });
}

describe("t specs", () => {
  test("int", () => {
    expect(t.int().parse(["7"], "x")).toBe(7);
    expect(t.int().parse(["-3"], "x")).toBe(-3);
    expect(() => t.int().parse(["1.5"], "x")).toThrow(ArgError);
    expect(() => t.int().parse(undefined, "x")).toThrow("missing required argument 'x'");
    expect(t.int().default(4).parse(undefined, "x")).toBe(4);
    expect(t.int().fromJson(3, "x")).toBe(3);
    expect(() => t.int().fromJson(3.5, "x")).toThrow(ArgError);
  });

  test("repeated scalar: the last value wins", () => {
    expect(t.str().parse(["a", "b"], "x")).toBe("b");
  });

  test("JSON Schema", () => {
    expect(t.int().jsonSchema()).toEqual({ type: "integer" });
    expect(t.list(t.float()).jsonSchema()).toEqual({ type: "array", items: { type: "number" } });
    expect(t.bool().default(true).describe("flag").jsonSchema()).toEqual({
      type: "boolean",
      default: true,
      description: "flag",
    });
    expect(t.object({ a: t.str(), b: t.optional(t.int()), c: t.dict() }).jsonSchema()).toEqual({
      type: "object",
      properties: { a: { type: "string" }, b: { type: "integer" }, c: { type: "object" } },
      required: ["a", "c"],
    });
  });
});
