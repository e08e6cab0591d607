/** Limits applied while parsing a form body; exceeding one answers 413. */
export interface FormLimits {
  /** Most fields (urlencoded pairs or multipart parts, files included) in one body. */
  maxParts: number;
  /** Most bytes in one text field's value (and in one field name). */
  maxFieldSize: number;
  /** Most bytes in one uploaded file. The request's `maxBodySize` bounds it anyway. */
  maxFileSize: number;
}

export const DEFAULT_FORM_LIMITS: FormLimits = Object.freeze({
  maxParts: 1000,
  maxFieldSize: 1024 * 1024,
  maxFileSize: Number.POSITIVE_INFINITY,
});

/** One uploaded file of a multipart body, with everything the part said about it. */
export interface UploadedFile {
  /** The form field the file came from (`<input type="file" name="…">`). */
  fieldName: string;
  /** The file name sent by the client, reduced to its last path segment. */
  fileName: string;
  /** The part's `Content-Type`, `application/octet-stream` when absent. */
  contentType: string;
  data: Uint8Array;
}

export interface ParsedForm {
  /** Text fields by name; a repeated name keeps its last value. */
  fields: Record<string, string>;
  /** Uploaded files by file name; two files with the same name: the last wins. */
  files: Record<string, Uint8Array>;
  /** Every value of every text field, in body order. */
  fieldLists: Record<string, string[]>;
  /** Every uploaded file, in body order, with field name and content type. */
  uploads: UploadedFile[];
}

/** Own-property assignment that cannot touch the prototype, whatever name the client sends. */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

export function emptyForm(): ParsedForm {
  return { fields: {}, files: {}, fieldLists: {}, uploads: [] };
}

export function addField(form: ParsedForm, name: string, value: string): void {
  setOwn(form.fields, name, value);
  const list = Object.hasOwn(form.fieldLists, name) ? form.fieldLists[name] : undefined;
  if (list) list.push(value);
  else setOwn(form.fieldLists, name, [value]);
}
