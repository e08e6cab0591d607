/**
 * Parsing of parameterised header values such as
 * `multipart/form-data; boundary="x"` or `form-data; name="a"; filename="b.txt"`
 * (RFC 9110 §5.6.6 parameters, RFC 8187 `name*=` extended values).
 */
import { ASCII_CLASS, TCHAR } from "../char-classes.ts";

export interface ParsedHeaderValue {
  /** The value before the first `;`, trimmed and lower-cased (`multipart/form-data`, `form-data`). */
  value: string;
  /** Parameters by lower-cased name; a `name*` extended value is stored decoded under `name*`. */
  params: Map<string, string>;
}

/**
 * Splits a header value into its main value and parameters. Returns `null`
 * when the parameter syntax is broken (unterminated quote, missing `=`), so the
 * caller can answer 400 instead of guessing.
 */
export function parseHeaderValue(header: string): ParsedHeaderValue | null {
  const semi = header.indexOf(";");
  const value = (semi === -1 ? header : header.slice(0, semi)).trim().toLowerCase();
  const params = new Map<string, string>();
  if (semi === -1) return { value, params };
  let i = semi + 1;
  const n = header.length;
  while (i < n) {
    while (i < n && (header[i] === " " || header[i] === "\t" || header[i] === ";")) i++;
    if (i >= n) break;
    const nameStart = i;
    // RFC 9110 tchar, read from the shared table: this runs for every part of every multipart body.
    while (i < n && (ASCII_CLASS[header.charCodeAt(i)] & TCHAR) !== 0) i++;
    const name = header.slice(nameStart, i).toLowerCase();
    while (i < n && (header[i] === " " || header[i] === "\t")) i++;
    if (name === "" || header[i] !== "=") return null;
    i++;
    while (i < n && (header[i] === " " || header[i] === "\t")) i++;
    let paramValue: string;
    if (header[i] === '"') {
      // quoted-string. Only `\"` is taken as an escape: browsers send Windows paths
      // (`C:\Users\x.txt`) unescaped, so any other backslash is literal.
      i++;
      let out = "";
      let closed = false;
      while (i < n) {
        const c = header[i]!;
        if (c === "\\" && header[i + 1] === '"') {
          out += '"';
          i += 2;
        } else if (c === '"') {
          closed = true;
          i++;
          break;
        } else {
          out += c;
          i++;
        }
      }
      if (!closed) return null;
      paramValue = out;
    } else {
      const start = i;
      while (i < n && header[i] !== ";") i++;
      paramValue = header.slice(start, i).trim();
    }
    if (name.endsWith("*")) {
      const decoded = decodeExtValue(paramValue);
      if (decoded === null) return null;
      paramValue = decoded;
    }
    // The first occurrence wins: a later duplicate cannot override what was validated first.
    if (!params.has(name)) params.set(name, paramValue);
    while (i < n && header[i] !== ";") {
      if (header[i] !== " " && header[i] !== "\t") return null;
      i++;
    }
  }
  return { value, params };
}

/** RFC 8187 `charset'lang'percent-encoded`; UTF-8 and ISO-8859-1 are the charsets the RFC requires. */
function decodeExtValue(ext: string): string | null {
  const first = ext.indexOf("'");
  const second = first === -1 ? -1 : ext.indexOf("'", first + 1);
  if (second === -1) return null;
  const charset = ext.slice(0, first).toLowerCase();
  const encoded = ext.slice(second + 1);
  if (/%(?![0-9A-Fa-f]{2})/.test(encoded)) return null;
  if (charset === "utf-8") {
    try {
      return decodeURIComponent(encoded);
    } catch {
      return null;
    }
  }
  if (charset === "iso-8859-1") {
    return encoded.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
  }
  return null;
}
