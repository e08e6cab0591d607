import { BadRequestError, HttpError } from "../response/errors.ts";
import { addField, emptyForm, type FormLimits, type ParsedForm, setOwn } from "./form-types.ts";
import { parseHeaderValue } from "./header-params.ts";

const CR = 13;
const LF = 10;
const DASH = 45;
const SP = 32;
const HTAB = 9;
/** Headers of one part larger than this are refused: real parts carry two short headers. */
export const MAX_PART_HEADER_BYTES = 16 * 1024;
const CRLFCRLF = Buffer.from("\r\n\r\n");
/** RFC 2046 bchars, 1 to 70 of them, not ending in a space. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

const utf8 = new TextDecoder("utf-8");

/** The boundary of a `multipart/form-data` content type; 400 when missing or invalid. */
export function multipartBoundary(contentType: string): string {
  const parsed = parseHeaderValue(contentType);
  if (parsed === null)
    throw new BadRequestError("Malformed multipart body: unparsable Content-Type parameters");
  const boundary = parsed.params.get("boundary");
  if (boundary === undefined || boundary === "") {
    throw new BadRequestError("Malformed multipart body: the Content-Type has no boundary parameter");
  }
  if (!BOUNDARY.test(boundary)) {
    throw new BadRequestError("Malformed multipart body: invalid boundary (1 to 70 characters, RFC 2046)");
  }
  return boundary;
}

/**
 * Parses a `multipart/form-data` body (RFC 7578) in one synchronous pass.
 *
 * Bun's `Response.formData()` is native too, but it is asynchronous (the
 * request's lazy `formData`/`files` getters are not), copies every file into a
 * Blob, and silently drops or renames what it does not understand: parts
 * without a name disappear, an empty file name becomes `"undefined"`,
 * `filename*=` turns a file into a text field, LF-only bodies parse as empty.
 * Here every part is checked and the boundary search is `Buffer.indexOf`
 * (native memmem), so the cost stays that of a scan.
 */
export function parseMultipart(body: Uint8Array, contentType: string, limits: FormLimits): ParsedForm {
  const boundary = multipartBoundary(contentType);
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const dashBoundary = Buffer.from(`--${boundary}`, "latin1");
  const delimiter = Buffer.from(`\r\n--${boundary}`, "latin1");
  const form = emptyForm();

  // The first boundary opens the body or follows a preamble that ends in CRLF.
  let pos: number;
  if (buf.subarray(0, dashBoundary.length).equals(dashBoundary)) pos = dashBoundary.length;
  else {
    const first = buf.indexOf(delimiter);
    if (first === -1) throw malformed("the boundary given in Content-Type does not occur in the body");
    pos = first + delimiter.length;
  }

  let parts = 0;
  for (;;) {
    if (buf[pos] === DASH && buf[pos + 1] === DASH) return form; // close delimiter; the epilogue is ignored
    while (buf[pos] === SP || buf[pos] === HTAB) pos++; // transport padding
    if (buf[pos] !== CR || buf[pos + 1] !== LF) {
      throw malformed(
        pos >= buf.length ? "truncated body (missing final boundary)" : "boundary line not followed by CRLF",
      );
    }
    pos += 2;
    parts++;
    if (parts > limits.maxParts)
      throw new HttpError(413, `Too many multipart parts (limit ${limits.maxParts})`);

    let headerText: string;
    let contentStart: number;
    if (buf[pos] === CR && buf[pos + 1] === LF) {
      headerText = "";
      contentStart = pos + 2;
    } else {
      // Search a bounded window: a part whose headers never end must not cost a scan of the whole body.
      const window = buf.subarray(pos, pos + MAX_PART_HEADER_BYTES + CRLFCRLF.length);
      const headerLength = window.indexOf(CRLFCRLF);
      if (headerLength === -1) {
        if (window.length === MAX_PART_HEADER_BYTES + CRLFCRLF.length) {
          throw new HttpError(413, `Multipart part headers too large (limit ${MAX_PART_HEADER_BYTES} bytes)`);
        }
        throw malformed("truncated part headers");
      }
      const headerEnd = pos + headerLength;
      headerText = utf8.decode(buf.subarray(pos, headerEnd));
      contentStart = headerEnd + 4;
    }
    const contentEnd = buf.indexOf(delimiter, contentStart);
    if (contentEnd === -1) throw malformed("truncated body (missing final boundary)");
    addPart(form, parts, headerText, body.subarray(contentStart, contentEnd), limits);
    pos = contentEnd + delimiter.length;
  }
}

function addPart(
  form: ParsedForm,
  index: number,
  headerText: string,
  content: Uint8Array,
  limits: FormLimits,
): void {
  const part = describePart(headerText, index, limits.maxFieldSize);
  if (part.fileName === null) {
    if (content.length > limits.maxFieldSize) {
      throw new HttpError(413, `Form field "${part.name}" too large (limit ${limits.maxFieldSize} bytes)`);
    }
    addField(form, part.name, utf8.decode(content));
    return;
  }
  if (part.fileName === "") {
    // What a browser sends for a file input left empty: no file.
    if (content.length === 0) return;
    throw malformed(`part ${index} is a file without a file name`);
  }
  if (content.length > limits.maxFileSize) {
    throw new HttpError(
      413,
      `Uploaded file "${part.fileName}" too large (limit ${limits.maxFileSize} bytes)`,
    );
  }
  // A copy, so that the file does not keep (or expose through `.buffer`) the whole request body.
  const data = content.slice();
  setOwn(form.files, part.fileName, data);
  form.uploads.push({ fieldName: part.name, fileName: part.fileName, contentType: part.contentType, data });
}

/** What the headers of one part say; shared by this parser and the streaming one (src/uploads/). */
export interface PartDescription {
  /** The form field's name. */
  name: string;
  /** The file name reduced to its last path segment; `""` for a file input left empty; null for a text field. */
  fileName: string | null;
  /** The part's `Content-Type`; `application/octet-stream` for files without one, `text/plain` for fields. */
  contentType: string;
  /** Every header of the part, lower-cased names. */
  headers: Map<string, string>;
}

/**
 * Parses and checks the headers of part `index` (1-based): a `form-data` Content-Disposition with
 * a name (at most `maxNameSize` bytes, else 413), a safe file name. Malformed: 400.
 */
export function describePart(headerText: string, index: number, maxNameSize: number): PartDescription {
  const headers = parsePartHeaders(headerText, index);
  const dispositionHeader = headers.get("content-disposition");
  if (dispositionHeader === undefined) throw malformed(`part ${index} has no Content-Disposition header`);
  const disposition = parseHeaderValue(dispositionHeader);
  if (disposition === null) throw malformed(`part ${index} has an unparsable Content-Disposition header`);
  if (disposition.value !== "form-data") throw malformed(`part ${index} is not form-data`);
  const name = disposition.params.get("name");
  if (name === undefined) throw malformed(`part ${index} has no name`);
  if (Buffer.byteLength(name, "utf8") > maxNameSize) {
    throw new HttpError(413, `Form field name too large (limit ${maxNameSize} bytes)`);
  }
  const rawFileName = disposition.params.get("filename*") ?? disposition.params.get("filename");
  const declaredType = headers.get("content-type")?.trim();
  if (rawFileName === undefined) {
    return { name, fileName: null, contentType: declaredType || "text/plain", headers };
  }
  const fileName = baseName(rawFileName);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused here
  if (fileName === "." || fileName === ".." || /[\u0000-\u001f\u007f]/.test(fileName)) {
    throw malformed(`part ${index} has an invalid file name`);
  }
  return { name, fileName, contentType: declaredType || "application/octet-stream", headers };
}

/** Keeps the last path segment: old browsers sent full client paths, and a name must not steer where a file is saved. */
function baseName(fileName: string): string {
  const cut = Math.max(fileName.lastIndexOf("/"), fileName.lastIndexOf("\\"));
  return cut === -1 ? fileName : fileName.slice(cut + 1);
}

function parsePartHeaders(text: string, index: number): Map<string, string> {
  const headers = new Map<string, string>();
  if (text === "") return headers;
  let last: string | null = null;
  for (const line of text.split("\r\n")) {
    if ((line.startsWith(" ") || line.startsWith("\t")) && last !== null) {
      headers.set(last, `${headers.get(last)} ${line.trim()}`); // obsolete line folding
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) throw malformed(`part ${index} has a malformed header line`);
    last = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(last)) headers.set(last, line.slice(colon + 1).trim());
  }
  return headers;
}

export function malformed(detail: string): BadRequestError {
  return new BadRequestError(`Malformed multipart body: ${detail}`);
}
