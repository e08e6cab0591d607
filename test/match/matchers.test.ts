/** Registration rules and helpers of the matching engines (the shared behaviour is in conformance.test.ts). */
import { describe, expect, test } from "bun:test";
import {
  bunRouteKeys,
  bunRouteTable,
  compileParamReader,
  rawParams,
  wildcardValue,
} from "../../src/match/bun-routes.ts";
import { FfiMatcher } from "../../src/match/ffi.ts";
import { createMatcher } from "../../src/match/index.ts";
import { JsMatcher } from "../../src/match/js.ts";
import { encodeStaticSegment, normalisePath, parsePattern, splitPattern } from "../../src/match/pattern.ts";
import type { PathMatcher } from "../../src/match/types.ts";

const makers: Array<[string, () => PathMatcher]> = [
  ["js", () => new JsMatcher()],
  ["ffi (dlopen)", () => new FfiMatcher({ loader: "dlopen" })],
  ["ffi (tinycc)", () => new FfiMatcher({ loader: "tinycc" })],
];

for (const [name, make] of makers) {
  describe(`registration: ${name}`, () => {
    test("registering the same pattern twice is idempotent", () => {
      const m = make();
      try {
        m.add("/u/:id");
        m.add("/u/:id");
        m.add("/u/:id/");
        expect(m.match("/u/7")).toEqual({ pattern: "/u/:id", params: { id: "7" } });
      } finally {
        m.close?.();
      }
    });

    test("same position, different param name: the later add throws and changes nothing", () => {
      const m = make();
      try {
        m.add("/u/:id");
        expect(() => m.add("/u/:name")).toThrow('conflicting route "/u/:name": "/u/:id" already matches');
        m.add("/f/*rest");
        expect(() => m.add("/f/*other")).toThrow("conflicting route");
        // A different shape below the same param node is fine.
        m.add("/u/:userId/posts");
        expect(m.match("/u/7")).toEqual({ pattern: "/u/:id", params: { id: "7" } });
        expect(m.match("/u/7/posts")).toEqual({ pattern: "/u/:userId/posts", params: { userId: "7" } });
      } finally {
        m.close?.();
      }
    });

    test("invalid patterns throw a clear Error", () => {
      const m = make();
      try {
        for (const bad of ["/a//b", "/:", "/a/:/b", "/*rest/more", "/a/:x/:x", "/:x/*x"]) {
          expect(() => m.add(bad)).toThrow(/invalid route pattern/);
        }
        expect(m.match("/a/b")).toBeNull();
      } finally {
        m.close?.();
      }
    });

    test("patterns are normalised like paths: missing leading slash, trailing slash", () => {
      const m = make();
      try {
        m.add("about/");
        expect(m.match("/about")).toEqual({ pattern: "about/", params: {} });
      } finally {
        m.close?.();
      }
    });

    test("paths that are not normalised are not matched", () => {
      const m = make();
      try {
        m.add("/a");
        expect(m.match("a")).toBeNull();
        expect(m.match("")).toBeNull();
        expect(m.match("/a/")).toBeNull();
      } finally {
        m.close?.();
      }
    });

    test("a non-ASCII path (not from a URL parser) still yields correct params", () => {
      const m = make();
      try {
        m.add("/u/:name/x");
        expect(m.match("/u/é😀/x")).toEqual({ pattern: "/u/:name/x", params: { name: "é😀" } });
      } finally {
        m.close?.();
      }
    });
  });
}

describe("FfiMatcher", () => {
  test("both loaders work and report which one ran", () => {
    const a = new FfiMatcher({ loader: "dlopen" });
    const b = new FfiMatcher({ loader: "tinycc" });
    expect(a.loader).toBe("dlopen");
    expect(b.loader).toBe("tinycc");
    a.close();
    b.close();
  });

  test("without a C compiler, the default loader falls back to TinyCC", () => {
    const proc = Bun.spawnSync([process.execPath, `${import.meta.dir}/fixtures/ffi-auto.ts`], {
      env: { PATH: "/nonexistent", HOME: process.env.HOME ?? "/tmp", TMPDIR: process.env.TMPDIR ?? "/tmp" },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(proc.stderr.toString()).toBe("");
    expect(JSON.parse(proc.stdout.toString())).toEqual({
      loader: "tinycc",
      match: { pattern: "/a/*rest", params: { rest: "b/c" } },
    });
  });

  test("close() releases the router; using it afterwards throws, closing twice is harmless", () => {
    const m = new FfiMatcher();
    m.add("/a");
    m.close();
    m.close();
    expect(() => m.match("/a")).toThrow("native router is closed");
    expect(() => m.add("/b")).toThrow("native router is closed");
  });

  test("paths longer than the C buffer grow it", () => {
    const m = new FfiMatcher();
    try {
      m.add("/x/:id");
      const id = "z".repeat(100_000);
      expect(m.match(`/x/${id}`)).toEqual({ pattern: "/x/:id", params: { id } });
      expect(m.match("/x/short")).toEqual({ pattern: "/x/:id", params: { id: "short" } });
    } finally {
      m.close();
    }
  });
});

describe("createMatcher", () => {
  test("js and bun give the JS trie, ffi the native one", () => {
    expect(createMatcher("js")).toBeInstanceOf(JsMatcher);
    expect(createMatcher("bun")).toBeInstanceOf(JsMatcher);
    const ffi = createMatcher("ffi");
    expect(ffi).toBeInstanceOf(FfiMatcher);
    ffi.close?.();
  });

  test("an unknown engine name throws", () => {
    expect(() => createMatcher("fast" as never)).toThrow('unknown router engine "fast"');
  });
});

describe("pattern helpers", () => {
  test("normalisePath", () => {
    expect(normalisePath("")).toBe("/");
    expect(normalisePath("/")).toBe("/");
    expect(normalisePath("//")).toBe("/");
    expect(normalisePath("/a/")).toBe("/a");
    expect(normalisePath("/a//")).toBe("/a/");
    expect(normalisePath("a")).toBe("/a");
    expect(normalisePath("/a/b")).toBe("/a/b");
  });

  test("splitPattern", () => {
    expect(splitPattern("/")).toEqual([]);
    expect(splitPattern("/users/:id/")).toEqual(["users", ":id"]);
  });

  test("encodeStaticSegment encodes what a URL parser encodes, and nothing else", () => {
    expect(encodeStaticSegment("café")).toBe("caf%C3%A9");
    expect(encodeStaticSegment("a b")).toBe("a%20b");
    expect(encodeStaticSegment('"<>^`{}')).toBe("%22%3C%3E%5E%60%7B%7D");
    expect(encodeStaticSegment("a%20b")).toBe("a%20b");
    expect(encodeStaticSegment("a-b_c.d~e!$&'()*+,;=:@")).toBe("a-b_c.d~e!$&'()*+,;=:@");
    expect(encodeStaticSegment("😀")).toBe("%F0%9F%98%80");
  });

  test("parsePattern", () => {
    expect(parsePattern("/files/:id/*rest")).toEqual({
      pattern: "/files/:id/*rest",
      segments: [
        { kind: "static", value: "files" },
        { kind: "param", name: "id" },
        { kind: "wildcard", name: "rest" },
      ],
      names: ["id", "rest"],
      canonical: "/files/:id/*rest",
      isStatic: false,
    });
    expect(parsePattern("/static/*").names).toEqual(["*"]);
    expect(parsePattern("/café/").canonical).toBe("/caf%C3%A9");
    expect(parsePattern("/").isStatic).toBe(true);
  });
});

describe("bun-routes", () => {
  test("bunRouteKeys adds the trailing-slash and zero-segment variants", () => {
    expect(bunRouteKeys("/")).toEqual(["/", "//"]);
    expect(bunRouteKeys("/users/:id")).toEqual(["/users/:id", "/users/:id/"]);
    expect(bunRouteKeys("/files/*rest")).toEqual(["/files/*", "/files"]);
    expect(bunRouteKeys("/*all")).toEqual(["/*"]);
    expect(bunRouteKeys("/café")).toEqual(["/caf%C3%A9", "/caf%C3%A9/"]);
  });

  test("bunRouteTable: a registered pattern beats another's variant; duplicates collapse", () => {
    const table = bunRouteTable(["/files/*rest", "/files", "/files", "/u/:id", "/u/:id/*rest"]);
    expect(Object.fromEntries(table)).toEqual({
      "/files/*": "/files/*rest",
      "/files": "/files",
      "/files/": "/files",
      "/u/:id": "/u/:id",
      "/u/:id/": "/u/:id",
      "/u/:id/*": "/u/:id/*rest",
    });
  });

  test("bunRouteTable rejects what the other engines reject", () => {
    expect(() => bunRouteTable(["/u/:id", "/u/:name"])).toThrow("conflicting route");
    expect(() => bunRouteTable(["/a//b"])).toThrow("invalid route pattern");
  });

  test("rawParams and wildcardValue read raw captures from the raw pathname", () => {
    expect(rawParams("/u/:id/posts/:pid", "/u/a%2Fb/posts/%C3%A9")).toEqual({ id: "a%2Fb", pid: "%C3%A9" });
    expect(rawParams("/u/:id", "/u/7/")).toEqual({ id: "7" });
    expect(rawParams("/about", "/about")).toEqual({});
    expect(wildcardValue("/files/*rest", "/files/a/b%20c")).toBe("a/b%20c");
    expect(wildcardValue("/files/*rest", "/files")).toBe("");
    expect(wildcardValue("/files/*rest", "/files/")).toBe("");
    expect(wildcardValue("/files/*rest", "/files/a/")).toBe("a");
    expect(wildcardValue("/*", "/")).toBe("");
    expect(wildcardValue("/users/:id", "/users/1")).toBeUndefined();
    const read = compileParamReader("/m/:a/*b");
    expect(read("/m/1/2/3")).toEqual({ a: "1", b: "2/3" });
  });
});
