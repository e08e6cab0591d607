/**
 * RFC 9110 §5.6.2 `token`: one or more `tchar` (letters, digits and ``!#$%&'*+-.^_`|~``), the
 * grammar of header names, methods, cookie names, metric names and the parameter names of
 * `Forwarded`. The header checks, cookies, `Forwarded`, CORS, request ids, cache `vary` names and
 * Server-Timing each held their own copy (a regular expression or a table); this is the one test
 * they share, a loop over the table of src/char-classes.ts.
 */
import { ASCII_CLASS, TCHAR } from "../char-classes.ts";

export function isToken(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 128 || (ASCII_CLASS[code] & TCHAR) === 0) return false;
  }
  return true;
}
