/**
 * The one conformance table every routing engine must pass. Each group has
 * its own route table; each check is a request path as a client would send it
 * (the engines receive the URL parser's raw pathname) and the expected match:
 * the pattern as registered and the RAW (still percent-encoded) params.
 */
import type { PathMatch } from "../../src/match/types.ts";

export interface ConformanceGroup {
  name: string;
  /**
   * The paths are raw request targets, sent byte for byte (the `bun` runner
   * puts them on the socket as written; `js`/`ffi` get what Bun's `req.url`
   * holds, dot segments resolved). The expected match is the one of the
   * resolved path on every engine (docs/security.md, "Request target").
   */
  raw?: boolean;
  routes: string[];
  checks: Array<[path: string, expected: PathMatch | null]>;
}

const m = (pattern: string, params: Record<string, string> = {}): PathMatch => ({ pattern, params });

// 5,000 routes: 2,000 static, 2,000 with a param, 1,000 with a param and a wildcard.
const manyRoutes: string[] = [];
for (let i = 0; i < 2000; i++) manyRoutes.push(`/static${i}`, `/res${i}/:id`);
for (let i = 0; i < 1000; i++) manyRoutes.push(`/api/v${i % 50}/item${i}/:x/*rest`);

const longSegment = "a".repeat(10_000);
const deepPath = `/deep${"/seg".repeat(2_500)}`; // 10,005 characters, 2,501 segments

export const conformanceTable: ConformanceGroup[] = [
  {
    name: "static",
    routes: ["/", "/about", "/about/team", "/a/b/c/d"],
    checks: [
      ["/", m("/")],
      ["/about", m("/about")],
      ["/about/team", m("/about/team")],
      ["/a/b/c/d", m("/a/b/c/d")],
      ["/a/b/c", null],
      ["/about/x", null],
      ["/About", null],
      ["/aboutx", null],
    ],
  },
  {
    name: "params",
    routes: ["/users/:id", "/users"],
    checks: [
      ["/users/42", m("/users/:id", { id: "42" })],
      ["/users/a.b-c_d~e", m("/users/:id", { id: "a.b-c_d~e" })],
      ["/users", m("/users")],
      ["/users/", m("/users")],
      ["/users/42/extra", null],
    ],
  },
  {
    name: "several params",
    routes: ["/users/:uid/posts/:pid", "/m/:a/:b/:c/:d", "/users/:uid/posts/:pid/comments/:cid"],
    checks: [
      ["/users/7/posts/9", m("/users/:uid/posts/:pid", { uid: "7", pid: "9" })],
      ["/m/1/2/3/4", m("/m/:a/:b/:c/:d", { a: "1", b: "2", c: "3", d: "4" })],
      [
        "/users/7/posts/9/comments/11",
        m("/users/:uid/posts/:pid/comments/:cid", { uid: "7", pid: "9", cid: "11" }),
      ],
      ["/users/7/posts", null],
      ["/m/1/2/3", null],
    ],
  },
  {
    name: "wildcard *extra",
    routes: ["/files/*extra", "/static/*", "/mixed/:id/*rest"],
    checks: [
      ["/files/a/b/c.txt", m("/files/*extra", { extra: "a/b/c.txt" })],
      ["/files/a", m("/files/*extra", { extra: "a" })],
      ["/files", m("/files/*extra", { extra: "" })],
      ["/files/", m("/files/*extra", { extra: "" })],
      ["/files/a/b/", m("/files/*extra", { extra: "a/b" })],
      ["/static/app.js", m("/static/*", { "*": "app.js" })],
      ["/mixed/5/x/y", m("/mixed/:id/*rest", { id: "5", rest: "x/y" })],
      ["/mixed/5", m("/mixed/:id/*rest", { id: "5", rest: "" })],
      ["/filesx", null],
      ["/mixed", null],
    ],
  },
  {
    name: "catch-all",
    routes: ["/*all", "/api/:v"],
    checks: [
      ["/", m("/*all", { all: "" })],
      ["/x/y", m("/*all", { all: "x/y" })],
      ["/api/1", m("/api/:v", { v: "1" })],
      ["/api", m("/*all", { all: "api" })],
      ["/api/1/2", m("/*all", { all: "api/1/2" })],
    ],
  },
  {
    name: "trailing slash",
    routes: ["/", "/about", "/users/:id", "/files", "/files/*rest"],
    checks: [
      ["//", m("/")],
      ["/about/", m("/about")],
      ["/users/7/", m("/users/:id", { id: "7" })],
      ["/files", m("/files")],
      ["/files/", m("/files")],
      ["/files/x/", m("/files/*rest", { rest: "x" })],
      ["/about//", null],
      ["/users//", null],
    ],
  },
  {
    name: "percent-encoding",
    routes: ["/users/:id", "/files/*rest", "/a b", "/q%3Fx", "/lit%2Fslash"],
    checks: [
      ["/users/a%2Fb", m("/users/:id", { id: "a%2Fb" })],
      ["/users/a%2fb", m("/users/:id", { id: "a%2fb" })],
      ["/users/a%20b", m("/users/:id", { id: "a%20b" })],
      ["/users/a b", m("/users/:id", { id: "a%20b" })],
      ["/users/%zz", m("/users/:id", { id: "%zz" })],
      ["/users/%", m("/users/:id", { id: "%" })],
      ["/users/%C3%A9", m("/users/:id", { id: "%C3%A9" })],
      ["/files/x%2Fy/z", m("/files/*rest", { rest: "x%2Fy/z" })],
      ["/a%20b", m("/a b")],
      ["/a b", m("/a b")],
      ["/q%3Fx", m("/q%3Fx")],
      ["/lit%2Fslash", m("/lit%2Fslash")],
      ["/lit/slash", null],
    ],
  },
  {
    name: "unicode",
    routes: ["/café", "/日本/:city", "/emoji/😀", "/u/:name"],
    checks: [
      ["/café", m("/café")],
      ["/caf%C3%A9", m("/café")],
      ["/cafe", null],
      ["/日本/東京", m("/日本/:city", { city: "%E6%9D%B1%E4%BA%AC" })],
      ["/%E6%97%A5%E6%9C%AC/x", m("/日本/:city", { city: "x" })],
      ["/emoji/😀", m("/emoji/😀")],
      ["/u/é", m("/u/:name", { name: "%C3%A9" })],
    ],
  },
  {
    name: "very long paths",
    routes: ["/x/:id", "/deep/*rest", `/long/${"s".repeat(5_000)}`],
    checks: [
      [`/x/${longSegment}`, m("/x/:id", { id: longSegment })],
      [deepPath, m("/deep/*rest", { rest: deepPath.slice("/deep/".length) })],
      [`/long/${"s".repeat(5_000)}`, m(`/long/${"s".repeat(5_000)}`)],
      [`/long/${"s".repeat(4_999)}`, null],
      [`/y/${longSegment}`, null],
      [`/x${"/a".repeat(5_000)}`, null],
    ],
  },
  {
    name: "many routes (5,000)",
    routes: manyRoutes,
    checks: [
      ["/static0", m("/static0")],
      ["/static1999", m("/static1999")],
      ["/static2000", null],
      ["/res1234/abc", m("/res1234/:id", { id: "abc" })],
      ["/res1999/z/", m("/res1999/:id", { id: "z" })],
      ["/api/v17/item917/q/r/s", m("/api/v17/item917/:x/*rest", { x: "q", rest: "r/s" })],
      ["/api/v17/item917/q", m("/api/v17/item917/:x/*rest", { x: "q", rest: "" })],
      ["/api/v17/item918/q", null],
      ["/res2000/abc", null],
    ],
  },
  {
    name: "precedence: static > param, with backtracking",
    routes: ["/a/:x/c", "/a/b/d"],
    checks: [
      ["/a/b/c", m("/a/:x/c", { x: "b" })],
      ["/a/b/d", m("/a/b/d")],
      ["/a/z/c", m("/a/:x/c", { x: "z" })],
      ["/a/b/e", null],
    ],
  },
  {
    name: "precedence: static > param > wildcard",
    routes: ["/u/me", "/u/:id", "/u/*rest", "/u/:id/posts"],
    checks: [
      ["/u/me", m("/u/me")],
      ["/u/you", m("/u/:id", { id: "you" })],
      ["/u/me/posts", m("/u/:id/posts", { id: "me" })],
      ["/u/you/x", m("/u/*rest", { rest: "you/x" })],
      ["/u", m("/u/*rest", { rest: "" })],
    ],
  },
  {
    name: "precedence: the earliest segment decides",
    routes: ["/a/b/c", "/:x/b/d", "/a/*rest", "/p/:q/r", "/:s/t/u", "/x/:p/static", "/x/y/*rest"],
    checks: [
      ["/a/b/d", m("/a/*rest", { rest: "b/d" })],
      ["/a/b/e", m("/a/*rest", { rest: "b/e" })],
      ["/z/b/d", m("/:x/b/d", { x: "z" })],
      ["/p/t/u", m("/:s/t/u", { s: "p" })],
      ["/x/y/static", m("/x/y/*rest", { rest: "static" })],
      ["/x/z/static", m("/x/:p/static", { p: "z" })],
    ],
  },
  {
    name: "no match",
    routes: ["/a", "/b/:x"],
    checks: [
      ["/", null],
      ["/c", null],
      ["/b", null],
      ["/b/x/y", null],
      ["/a/b", null],
      ["/b//", null],
      ["//a", null],
      ["//", null],
    ],
  },
  {
    name: "dot segments and raw targets (resolved before matching)",
    raw: true,
    routes: ["/internal", "/internal/files/*rest", "/public", "/a/:x", "/u/me", "/u/*rest", "/s/:a/:b"],
    checks: [
      ["/internal/..", null],
      ["/internal/%2e%2e", null],
      ["/internal/files/%2e%2e/%2e%2e/public", m("/public")],
      ["/internal/files/../../public", m("/public")],
      ["/internal/files/.%2E/x", null],
      ["/internal/files/x/.%2E/y", m("/internal/files/*rest", { rest: "y" })],
      ["/internal/files/a/./b/../c", m("/internal/files/*rest", { rest: "a/c" })],
      ["/public/../internal", m("/internal")],
      ["/public/%2E%2E/internal", m("/internal")],
      ["/./internal", m("/internal")],
      ["/%2e/internal", m("/internal")],
      ["/a/%2e%2e", null],
      ["/a/..", null],
      ["/a/.", null],
      ["/a/.%2e", null],
      ["/a/%2E.", null],
      ["/a/x/..", null],
      ["/a/x/../y", m("/a/:x", { x: "y" })],
      ["/a/%2e%2e%2fx", m("/a/:x", { x: "%2e%2e%2fx" })],
      ["/a/...", m("/a/:x", { x: "..." })],
      ["/a/.x", m("/a/:x", { x: ".x" })],
      ["/a/x\\..\\..\\internal", m("/internal")],
      ["/a/x%5cy", m("/a/:x", { x: "x%5cy" })],
      ["/u/x/../me", m("/u/me")],
      ["/u/me/../you", m("/u/*rest", { rest: "you" })],
      ["/s/%2e/b/../c", null],
      ["/s/x/./y", m("/s/:a/:b", { a: "x", b: "y" })],
      ["/s/x/%2e/y", m("/s/:a/:b", { a: "x", b: "y" })],
    ],
  },
];
