/** Limits of a streamed multipart body (`request.parts()`); each has its own 413 answer. */
import type { FormLimits } from "../body/form-types.ts";

export interface UploadLimits {
  /** Most parts (fields and files); more: 413. Default: the app's `formLimits.maxParts` (1000). */
  maxParts: number;
  /** Most bytes in one text field (a part without a file name) and in a field name; more: 413. Default: `formLimits.maxFieldSize` (1 MiB). */
  maxFieldSize: number;
  /** Most bytes in one file part; more: 413. Default: `formLimits.maxFileSize` (no limit of its own). */
  maxFileSize: number;
  /** Most bytes of the whole body, framing included; more: 413. Default 4 GiB. */
  maxTotalSize: number;
}

export const DEFAULT_MAX_TOTAL_UPLOAD = 4 * 1024 * 1024 * 1024;

/** The app's form limits, the defaults above, then what the handler passed. */
export function uploadLimits(form: FormLimits, given: Partial<UploadLimits> = {}): UploadLimits {
  const limits: UploadLimits = {
    maxParts: form.maxParts,
    maxFieldSize: form.maxFieldSize,
    maxFileSize: form.maxFileSize,
    maxTotalSize: DEFAULT_MAX_TOTAL_UPLOAD,
    ...given,
  };
  for (const [name, value] of Object.entries(limits)) {
    if (
      typeof value !== "number" ||
      Number.isNaN(value) ||
      value < 0 ||
      (!Number.isInteger(value) && value !== Number.POSITIVE_INFINITY)
    ) {
      throw new TypeError(
        `parts(): ${name} must be a whole number of bytes (or parts) >= 0, got ${String(value)}`,
      );
    }
  }
  return limits;
}
