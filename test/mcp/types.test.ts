/** Compile-time checks (run by `tsc --noEmit`): `args` specs and URI templates type the function's parameter. */
import { expect, test } from "bun:test";
import { t } from "../../src/args/t.ts";
import { Mcp } from "../../src/mcp/index.ts";

test("args and URI placeholders type the parameters", () => {
  const mcp = new Mcp();
  mcp.tool(
    ({ a, flag, tags, maybe }) => {
      const sum: number = a + 1;
      const yes: boolean = flag;
      const first: string | undefined = tags[0];
      const opt: number | undefined = maybe;
      // @ts-expect-error a is a number, not a string
      const wrong: string = a;
      return `${sum}${yes}${first}${opt}${wrong}`;
    },
    {
      name: "typed",
      args: { a: t.int(), flag: t.bool().default(false), tags: t.list(t.str()), maybe: t.optional(t.int()) },
    },
  );
  // @ts-expect-error `missing` is not one of the declared args
  mcp.tool(({ missing }) => String(missing), { name: "bad", args: { a: t.int() } });
  mcp.tool((input) => Object.keys(input).join(","), { name: "untyped" });
  mcp.resource("users://{id}/posts/{+rest}", ({ id, rest }) => id + rest);
  // @ts-expect-error `nope` is not a placeholder of the template
  mcp.resource("users://{id}", ({ nope }) => String(nope));
  mcp.prompt(({ topic }) => [{ role: "assistant", content: topic }], { name: "p", args: { topic: t.str() } });
  // @ts-expect-error prompt roles are user or assistant
  mcp.prompt(() => [{ role: "system", content: "x" }], { name: "q" });
  expect(mcp.active).toBe(true);
});
