/**
 * What a handler's source text says about its parameters (src/serve/dispatch.ts gives a handler
 * declared with `()` no `Request`: docs/architecture.md, "The pipeline"). Scanned by hand rather
 * than with regular expressions: this runs for every route at every start, and the first regular
 * expression a process runs pages in ~0.8 MB of the engine (docs/performance.md, "Start-up without
 * regular expressions"). Each function matches what the regular expression in its comment would.
 */

import { isWhiteSpaceCode } from "../white-space.ts";

/** ASCII `[A-Za-z0-9_]`: the characters of `\w`. */
function isWordCode(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x5f
  );
}

function skipSpaces(source: string, from: number): number {
  let i = from;
  while (i < source.length && isWhiteSpaceCode(source.charCodeAt(i))) i++;
  return i;
}

/** `source` continues with `word` at `at`. */
function hasAt(source: string, at: number, word: string): boolean {
  return source.startsWith(word, at);
}

/**
 * `/^(?:async\s*)?(?:function\s*\*?\s*[\w$]*\s*)?\(\s*\)/`: the source opens with an empty
 * parameter list (`() =>`, `async () =>`, `function () {`, `async function* name() {`).
 */
export function opensWithEmptyParameters(source: string): boolean {
  // The optional groups backtrack: each is tried taken, then skipped, as the expression would.
  const afterAsync = hasAt(source, 0, "async") ? [skipSpaces(source, 5), 0] : [0];
  for (const start of afterAsync) {
    if (hasAt(source, start, "function")) {
      let i = skipSpaces(source, start + 8);
      if (source.charCodeAt(i) === 0x2a) i = skipSpaces(source, i + 1); // `*`
      while (i < source.length) {
        const code = source.charCodeAt(i);
        if (!isWordCode(code) && code !== 0x24) break; // `$`
        i++;
      }
      if (emptyParametersAt(source, skipSpaces(source, i))) return true;
    }
    if (emptyParametersAt(source, start)) return true;
  }
  return false;
}

/** `\(\s*\)` at `at`. */
function emptyParametersAt(source: string, at: number): boolean {
  if (source.charCodeAt(at) !== 0x28) return false;
  return source.charCodeAt(skipSpaces(source, at + 1)) === 0x29;
}

/** `/\barguments\b/`: the word `arguments` appears in the source. */
export function readsArguments(source: string): boolean {
  for (let at = source.indexOf("arguments"); at !== -1; at = source.indexOf("arguments", at + 1)) {
    const before = at === 0 ? -1 : source.charCodeAt(at - 1);
    const after = at + 9 < source.length ? source.charCodeAt(at + 9) : -1;
    if (!isWordCode(before) && !isWordCode(after)) return true;
  }
  return false;
}
