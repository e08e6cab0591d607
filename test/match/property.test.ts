/**
 * Property: on random route tables and random paths, every engine returns
 * what a naive reference returns. The reference is written from the
 * precedence rule itself, not from the trie: among all patterns that match,
 * take the smallest per-segment rank sequence (static 0 < param 1 <
 * wildcard 2, compared left to right; ending exactly beats a wildcard that
 * captures nothing).
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { normalisePath, parsePattern } from "../../src/match/pattern.ts";
import type { PathMatch } from "../../src/match/types.ts";
import {
  bunEngine,
  type EngineRunner,
  ffiDlopenEngine,
  ffiTinyccEngine,
  jsEngine,
  rawPathname,
} from "./engines.ts";

function reference(routes: string[], path: string): PathMatch | null {
  const segs = path === "/" ? [] : path.slice(1).split("/");
  let best: { ranks: number[]; match: PathMatch } | null = null;
  const seen = new Set<string>();
  for (const pattern of routes) {
    const parsed = parsePattern(pattern);
    if (seen.has(parsed.canonical)) continue; // a re-registration keeps the first spelling
    seen.add(parsed.canonical);
    const ranks: number[] = [];
    const params: Record<string, string> = {};
    let ok = true;
    let i = 0;
    for (const seg of parsed.segments) {
      if (seg.kind === "wildcard") {
        params[seg.name] = segs.slice(i).join("/");
        ranks.push(2);
        i = segs.length;
        break;
      }
      const value = segs[i];
      if (value === undefined) {
        ok = false;
        break;
      }
      if (seg.kind === "static") {
        if (value !== seg.value) ok = false;
        ranks.push(0);
      } else {
        if (value === "") ok = false;
        params[seg.name] = value;
        ranks.push(1);
      }
      if (!ok) break;
      i++;
    }
    if (!ok || i !== segs.length) continue;
    if (best === null || compareRanks(ranks, best.ranks) < 0) best = { ranks, match: { pattern, params } };
  }
  return best?.match ?? null;
}

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

const patternSegment = fc.constantFrom("a", "b", "c", "é", "%C3%A9", "a b", ":", "*");
const patternArb = fc.array(patternSegment, { minLength: 0, maxLength: 4 }).map((segs) => {
  const out: string[] = [];
  for (const [i, seg] of segs.entries()) {
    if (seg === "*") {
      out.push("*w");
      break;
    }
    // Names by position: two patterns of the same shape never conflict.
    out.push(seg === ":" ? `:p${i}` : seg);
  }
  return `/${out.join("/")}`;
});
const tableArb = fc.array(patternArb, { minLength: 1, maxLength: 12 });
const pathArb = fc
  .array(fc.constantFrom("a", "b", "c", "é", "%C3%A9", "%c3%a9", "a b", "a%2Fb", "x", ""), {
    minLength: 0,
    maxLength: 5,
  })
  .map((segs) => `/${segs.join("/")}`);

const scenario = fc.record({ routes: tableArb, paths: fc.array(pathArb, { minLength: 1, maxLength: 12 }) });

async function agree(engine: EngineRunner, routes: string[], paths: string[]): Promise<void> {
  const got = await engine.run(routes, paths);
  paths.forEach((path, i) => {
    const expected = reference(routes, normalisePath(rawPathname(path)));
    expect({ routes, path, result: got[i] }).toEqual({ routes, path, result: expected });
  });
}

describe("property: engines agree with the reference", () => {
  for (const engine of [jsEngine, ffiDlopenEngine, ffiTinyccEngine]) {
    test(engine.name, async () => {
      await fc.assert(
        fc.asyncProperty(scenario, ({ routes, paths }) => agree(engine, routes, paths)),
        { numRuns: 400 },
      );
    });
  }
  test("bun (real Bun.serve)", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, ({ routes, paths }) => agree(bunEngine, routes, paths)),
      { numRuns: 40 },
    );
  }, 60_000);
});
