/**
 * The `t` contract check alone (src/contracts/t-check.ts): what is kept, what is a mismatch and
 * where it is reported, with no value in the report.
 */
import { describe, expect, test } from "bun:test";
import { compileSpec, type MismatchReport } from "../../src/contracts/t-check.ts";
import { t } from "../../src/index.ts";

function run(spec: Parameters<typeof compileSpec>[0], value: unknown) {
  const mismatches: { path: string; expected: string }[] = [];
  const report: MismatchReport = { mismatch: (path, expected) => mismatches.push({ path, expected }) };
  return { out: compileSpec(spec)(value, "", report), mismatches };
}

describe("t contract check", () => {
  const User = t.object({
    id: t.int().min(1),
    name: t.str().maxLength(5),
    email: t.optional(t.str()),
    roles: t.list(t.object({ name: t.str().oneOf(["admin", "user"]) })).maxLength(2),
    meta: t.dict(),
  });

  test("keeps declared fields only, recursively; a null optional is left out", () => {
    const { out, mismatches } = run(User, {
      id: 1,
      name: "Ada",
      email: null,
      passwordHash: "h",
      roles: [{ name: "admin", grantedBy: "root" }],
      meta: { any: "thing" },
    });
    expect(mismatches).toEqual([]);
    expect(out).toEqual({ id: 1, name: "Ada", roles: [{ name: "admin" }], meta: { any: "thing" } });
  });

  test("each mismatch is reported by its path and what was expected, never the value", () => {
    const { mismatches } = run(User, {
      id: "12",
      name: "Adalbert",
      roles: [{ name: "root" }, { name: "user" }, { name: "user" }],
      meta: [],
    });
    expect(mismatches).toEqual([
      { path: "id", expected: "an integer" },
      { path: "name", expected: "at most 5 characters" },
      { path: "roles.0.name", expected: "one of the declared values" },
      { path: "roles", expected: "at most 2 items" },
      { path: "meta", expected: "an object" },
    ]);
    expect(JSON.stringify(mismatches)).not.toContain("Adalbert");
    expect(JSON.stringify(mismatches)).not.toContain("root");
  });

  test("a missing required field, a non-object, bounds below the minimum", () => {
    expect(run(User, { name: "a", roles: [], meta: {} }).mismatches).toEqual([
      { path: "id", expected: "a value (the property is required)" },
    ]);
    expect(run(User, "text").mismatches).toEqual([{ path: "", expected: "an object" }]);
    expect(run(User, { id: 0, name: "a", roles: [], meta: {} }).mismatches).toEqual([
      { path: "id", expected: "at least 1" },
    ]);
  });

  test("floats, booleans and toJSON", () => {
    const Spec = t.object({ x: t.float(), ok: t.bool(), at: t.str() });
    const { out, mismatches } = run(Spec, { x: 1.5, ok: true, at: new Date(0) });
    expect(mismatches).toEqual([]);
    expect(out).toEqual({ x: 1.5, ok: true, at: "1970-01-01T00:00:00.000Z" });
    expect(run(Spec, { x: Number.NaN, ok: "true", at: "" }).mismatches.map((m) => m.path)).toEqual([
      "x",
      "ok",
    ]);
  });
});
