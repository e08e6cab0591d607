/**
 * What the regular-expression classes `\s` and `\w` match, and RFC 9110's `tchar`, for the
 * scanners that stand in for regular expressions on the start-up path (docs/performance.md,
 * "Start-up without regular expressions").
 *
 * The ASCII part is a table that callers read inline (`code < 128 && (ASCII_CLASS[code] & WORD) !== 0`)
 * rather than a predicate they call per character: a function called a few dozen times at start
 * (the startup line's keys were enough) is compiled by the baseline JIT, and the first compile pages
 * in ~1 MB of the engine that a raw `Bun.serve` never touches (docs/performance.md, "A predicate
 * per character").
 */

/** `\w` (without the `u` flag): ASCII letters, digits and `_`. */
export const WORD = 1;
/** `\s` below 128: tab, line feed, vertical tab, form feed, carriage return and space. */
export const SPACE = 2;
/** RFC 9110 `tchar`: letters, digits and ``!#$%&'*+-.^_`|~`` (src/http/token.ts). */
export const TCHAR = 4;

/** The class bits of each ASCII code. */
export const ASCII_CLASS = new Uint8Array(128);
for (let code = 0x30; code <= 0x39; code++) ASCII_CLASS[code] = WORD;
for (let code = 0x41; code <= 0x5a; code++) ASCII_CLASS[code] = ASCII_CLASS[code + 0x20] = WORD;
ASCII_CLASS[0x5f] = WORD;
for (let code = 0; code < 128; code++) if (ASCII_CLASS[code] === WORD) ASCII_CLASS[code] |= TCHAR;
// By index, not `for…of`: the string iterator costs a one-route app ~0.35 MB (docs/performance.md).
const TCHAR_MARKS = "!#$%&'*+-.^`|~";
for (let i = 0; i < TCHAR_MARKS.length; i++) ASCII_CLASS[TCHAR_MARKS.charCodeAt(i)] |= TCHAR;
for (let code = 0x09; code <= 0x0d; code++) ASCII_CLASS[code] = SPACE;
ASCII_CLASS[0x20] = SPACE;

/** `\s` at or above 128: Unicode's spaces and line separators (rare in the text scanned, so a call). */
export function isNonAsciiSpace(code: number): boolean {
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
