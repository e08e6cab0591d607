import { mediaType } from "../http/media-type.ts";
import { provideRequestServices } from "../http/request-services.ts";
import { HttpError } from "../response/errors.ts";
import { DEFAULT_FORM_LIMITS, type FormLimits, type ParsedForm } from "./form-types.ts";
import type * as Multipart from "./multipart.ts";
import { parseUrlEncoded } from "./urlencoded.ts";

export { DEFAULT_FORM_LIMITS, type FormLimits, type ParsedForm, type UploadedFile } from "./form-types.ts";

const URLENCODED = "application/x-www-form-urlencoded";
const MULTIPART = "multipart/form-data";

/**
 * The multipart parser, loaded on the first multipart form: an app that never reads one does not
 * pay its module at start (idle memory and start-up, docs/performance.md). `require` because the
 * parse is synchronous (the request's lazy `formData` getter).
 */
function multipart(): typeof Multipart {
  return require("./multipart.ts") as typeof Multipart;
}

/** True for the two form encodings: `application/x-www-form-urlencoded` and `multipart/form-data`. */
export function isFormContentType(contentType: string | null): boolean {
  const type = mediaType(contentType);
  return type === URLENCODED || type === MULTIPART;
}

/**
 * Parses a form body synchronously (what the request's lazy `formData` and
 * `files` getters need). Throws `BadRequestError` (400) on a malformed body,
 * `HttpError(413)` when a limit is exceeded, `HttpError(415)` when the content
 * type is not a form encoding.
 */
export function parseFormSync(
  body: Uint8Array,
  contentType: string,
  limits: FormLimits = DEFAULT_FORM_LIMITS,
): ParsedForm {
  const type = mediaType(contentType);
  if (type === URLENCODED) return parseUrlEncoded(body, limits);
  if (type === MULTIPART) return multipart().parseMultipart(body, contentType, limits);
  throw new HttpError(415, `Unsupported Media Type: expected ${URLENCODED} or ${MULTIPART}`);
}

/** `parseFormSync`, as a promise (the API the issue asked for). */
export async function parseForm(
  body: Uint8Array,
  contentType: string,
  limits: FormLimits = DEFAULT_FORM_LIMITS,
): Promise<ParsedForm> {
  return parseFormSync(body, contentType, limits);
}

/** `request.form`'s parser (src/http/request-services.ts): `null` for a body that is not a form. */
function readForm(
  body: Uint8Array,
  contentType: string | null,
  limits: FormLimits | null,
): ParsedForm | null {
  if (!isFormContentType(contentType)) return null;
  return parseFormSync(body, contentType as string, limits ?? DEFAULT_FORM_LIMITS);
}

provideRequestServices({ readForm });
