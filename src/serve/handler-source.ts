/**
 * What a handler's source text says about its parameters (src/serve/dispatch.ts gives a handler
 * declared with `()` no `Request`: docs/architecture.md, "The pipeline"). Scanned by hand rather
 * than with regular expressions: this runs for every route at every start, and the first regular
 * expression a process runs pages in ~0.8 MB of the engine (docs/performance.md, "Start-up without
 * regular expressions"). Each function matches what the regular expression in its comment would.
 */

import { isWhiteSpaceCode, isWordCode } from "../char-classes.ts";

function skipSpaces(source: string, from: number): number {
  let i = from;
  while (i < source.length && isWhiteSpaceCode(source.charCodeAt(i))) i++;
  return i;
}

/**
 * `/^(?:async\s*)?(?:function\s*\*?\s*[\w$]*\s*)?\(\s*\)/`: the source opens with an empty
 * parameter list (`() =>`, `async () =>`, `function () {`, `async function* name() {`). Neither
 * optional group needs the expression's backtracking: without it, the text left starts with a
 * letter, never with `(`.
 */
export function opensWithEmptyParameters(source: string): boolean {
  let i = source.startsWith("async") ? skipSpaces(source, 5) : 0;
  if (source.startsWith("function", i)) {
    i = skipSpaces(source, i + 8);
    if (source.charCodeAt(i) === 0x2a) i = skipSpaces(source, i + 1); // `*`
    while (i < source.length && (isWordCode(source.charCodeAt(i)) || source.charCodeAt(i) === 0x24)) i++; // `$`
    i = skipSpaces(source, i);
  }
  return emptyParametersAt(source, i);
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
