import { BadRequestError, HttpError } from "../response/errors.ts";
import { addField, emptyForm, type FormLimits, type ParsedForm } from "./form-types.ts";

const utf8 = new TextDecoder("utf-8");
/** A `%` not followed by two hex digits: WHATWG parsing would keep it literally, we call it malformed. */
const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/**
 * Parses an `application/x-www-form-urlencoded` body with Bun's native
 * `URLSearchParams` after checking what it would silently accept: broken
 * `%` escapes (400), too many pairs and oversized values (413). Percent-decoded
 * bytes that are not UTF-8 become U+FFFD, as in browsers (WHATWG).
 */
export function parseUrlEncoded(body: Uint8Array, limits: FormLimits): ParsedForm {
  const text = utf8.decode(body);
  if (BAD_ESCAPE.test(text)) {
    throw new BadRequestError(
      "Malformed form body: invalid percent-encoding (a % must be followed by two hex digits)",
    );
  }
  let pairs = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("&", start);
    if (end === -1) end = text.length;
    if (end > start) {
      pairs++;
      if (pairs > limits.maxParts)
        throw new HttpError(413, `Too many form fields (limit ${limits.maxParts})`);
      // The encoded length bounds the decoded UTF-8 length, so only long pairs need an exact measure.
      if (end - start > limits.maxFieldSize) checkPairSize(text.slice(start, end), limits.maxFieldSize);
    }
    start = end + 1;
  }
  const form = emptyForm();
  for (const [name, value] of new URLSearchParams(text)) addField(form, name, value);
  return form;
}

function checkPairSize(pair: string, max: number): void {
  const eq = pair.indexOf("=");
  for (const part of eq === -1 ? [pair] : [pair.slice(0, eq), pair.slice(eq + 1)]) {
    const decoded = decodeComponent(part);
    if (Buffer.byteLength(decoded, "utf8") > max) {
      throw new HttpError(413, `Form field too large (limit ${max} bytes)`);
    }
  }
}

function decodeComponent(part: string): string {
  return new URLSearchParams(`x=${part}`).get("x") ?? "";
}
