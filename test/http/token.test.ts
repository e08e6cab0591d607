/** src/http/token.ts: RFC 9110's `token`, shared by cookies, `Forwarded`, CORS, request ids and response headers. */
import { expect, test } from "bun:test";
import { isToken } from "../../src/http/token.ts";

// The grammar as RFC 9110 §5.6.2 writes it: 1*tchar.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

test("every UTF-16 code unit, alone and beside token characters, is judged as the grammar judges it", () => {
  const wrong: string[] = [];
  for (let code = 0; code < 0x10000; code++) {
    const unit = String.fromCharCode(code);
    for (const text of [unit, `a${unit}`, `${unit}-`, `${unit}${unit}`])
      if (isToken(text) !== TOKEN.test(text)) wrong.push(JSON.stringify(text));
  }
  expect(wrong).toEqual([]);
});

test("names, methods and the empty string", () => {
  for (const name of ["content-type", "X-Request-Id", "GET", "__Host-id", "a!#$%&'*+-.^_`|~9"])
    expect(isToken(name)).toBe(true);
  for (const name of ["", "a b", "a:b", "a\r\nb", "a;b", '"a"', "é", "a\u0000", "(a)", "a/b", "a=b"])
    expect(isToken(name)).toBe(false);
});
