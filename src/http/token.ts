/**
 * RFC 9110 §5.6.2 `token`: one or more `tchar` (letters, digits and ``!#$%&'*+-.^_`|~``), the
 * grammar of header names, methods, cookie names and the parameter names of `Forwarded`. Five
 * modules (cookies, `Forwarded`, CORS, request ids, the `Response` headers check) each held their own
 * copy of the same regular expression; this is the one test they share, a loop over the table of
 * src/char-classes.ts.
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
