import { describe, expect, test } from "bun:test";
import { UriTemplate } from "../../src/mcp/uri-template.ts";

describe("UriTemplate", () => {
  test("a URI without placeholders is concrete", () => {
    const template = new UriTemplate("config://app");
    expect(template.isTemplate).toBe(false);
    expect(template.names).toEqual([]);
    expect(template.match("config://app")).toEqual({});
    expect(template.match("config://app2")).toBeUndefined();
  });

  test("{name} captures one segment, percent-decoded", () => {
    const template = new UriTemplate("users://{id}/profile");
    expect(template.names).toEqual(["id"]);
    expect(template.match("users://42/profile")).toEqual({ id: "42" });
    expect(template.match("users://J%C3%BCrgen/profile")).toEqual({ id: "Jürgen" });
    expect(template.match("users://a/b/profile")).toBeUndefined();
    expect(template.match("users:///profile")).toBeUndefined();
    expect(template.match("users://42/profile/x")).toBeUndefined();
    expect(template.match("users://%E0%A4%A/profile")).toBeUndefined();
  });

  test("several placeholders, and a trailing one", () => {
    const template = new UriTemplate("repo://{owner}/{name}/issues/{number}");
    expect(template.match("repo://oven-sh/bun/issues/1")).toEqual({
      owner: "oven-sh",
      name: "bun",
      number: "1",
    });
    expect(template.match("repo://oven-sh/bun/issues/")).toBeUndefined();
    expect(template.match("repo://oven-sh/bun/pulls/1")).toBeUndefined();
  });

  test("a placeholder ends at the first occurrence of the literal after it", () => {
    const template = new UriTemplate("x://{a}.{b}");
    expect(template.match("x://1.2.3")).toEqual({ a: "1", b: "2.3" });
  });

  test("{+name} keeps slashes and the raw text", () => {
    const template = new UriTemplate("file:///{+path}");
    expect(template.names).toEqual(["path"]);
    expect(template.match("file:///etc/hosts")).toEqual({ path: "etc/hosts" });
    expect(template.match("file:///a%20b")).toEqual({ path: "a%20b" });
  });

  test("matching a long hostile URI is linear (no backtracking)", () => {
    const template = new UriTemplate("x://{a}-{b}-{c}-{d}!");
    const uri = `x://${"-".repeat(200_000)}`;
    expect(template.match(uri)).toBeUndefined();
  });

  test("bad templates are refused", () => {
    expect(() => new UriTemplate("x://{a}{b}")).toThrow(TypeError);
    expect(() => new UriTemplate("x://{a}/{a}")).toThrow(/twice/);
    expect(() => new UriTemplate("x://{}")).toThrow(/unsupported/);
    expect(() => new UriTemplate("x://{?q}")).toThrow(/unsupported/);
    expect(() => new UriTemplate("x://{a")).toThrow(/unclosed/);
    expect(() => new UriTemplate("x://a}")).toThrow(/unmatched/);
  });
});
