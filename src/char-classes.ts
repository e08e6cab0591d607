/**
 * What the regular-expression classes `\s` and `\w` match, for the scanners that stand in for
 * regular expressions on the start-up path (docs/performance.md, "Start-up without regular
 * expressions").
 */

/** `\s`: ASCII tab, line feed, vertical tab, form feed, carriage return and space, and Unicode's spaces and line separators. */
export function isWhiteSpaceCode(code: number): boolean {
  if (code < 0x80) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
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

/** `\w` (without the `u` flag): ASCII letters, digits and `_`. */
export function isWordCode(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x5f
  );
}
