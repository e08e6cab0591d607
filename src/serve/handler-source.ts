/**
 * What a handler's source text says about its parameters (src/serve/dispatch.ts gives a handler
 * declared with `()` no `Request`: docs/architecture.md, "The pipeline"). Scanned by hand rather
 * than with regular expressions: this runs for every route at every start, and the first regular
 * expression a process runs pages in ~0.8 MB of the engine (docs/performance.md, "Start-up without
 * regular expressions"). Each function matches what the regular expression in its comment would.
 */

import { ASCII_CLASS, isNonAsciiSpace, SPACE, WORD } from "../char-classes.ts";

function skipSpaces(source: string, from: number): number {
  let i = from;
  for (; i < source.length; i++) {
    const code = source.charCodeAt(i);
    if (code < 128 ? (ASCII_CLASS[code] & SPACE) === 0 : !isNonAsciiSpace(code)) break;
  }
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
    for (; i < source.length; i++) {
      const code = source.charCodeAt(i);
      if (code !== 0x24 && !(code < 128 && (ASCII_CLASS[code] & WORD) !== 0)) break; // `[\w$]`
    }
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
    const before = at === 0 ? 0 : source.charCodeAt(at - 1);
    const after = at + 9 < source.length ? source.charCodeAt(at + 9) : 0;
    if (
      !(before < 128 && (ASCII_CLASS[before] & WORD) !== 0) &&
      !(after < 128 && (ASCII_CLASS[after] & WORD) !== 0)
    )
      return true;
  }
  return false;
}
