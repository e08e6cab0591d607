/** `new Webfw(path, { compression })`: defaults and checks (docs/compression.md). */
import { ENCODINGS, type Encoding } from "./negotiate.ts";

export type { Encoding } from "./negotiate.ts";

export interface CompressionOptions {
  /** Codings to offer, in the server's order of preference. Default `["zstd", "br", "gzip"]`. */
  encodings?: Encoding[];
  /** Bodies smaller than this many bytes are sent as they are. Default 1024. */
  threshold?: number;
  /**
   * Levels for compressing per request: zstd 1–22 (default 3), br 0–11 (default 4), gzip 1–9
   * (default 6). A number sets every coding. Precompressed const routes always use the best level.
   */
  level?: number | Partial<Record<Encoding, number>>;
}

export interface ResolvedCompression {
  encodings: Encoding[];
  threshold: number;
  level: Record<Encoding, number>;
}

const LEVEL_RANGE: Record<Encoding, [number, number]> = { zstd: [1, 22], br: [0, 11], gzip: [1, 9] };
const DEFAULT_LEVEL: Record<Encoding, number> = { zstd: 3, br: 4, gzip: 6 };
/** What computing once at start affords: the best ratio. */
export const BEST_LEVEL: Record<Encoding, number> = { zstd: 19, br: 11, gzip: 9 };

/** `false`/absent: null (off, nothing is wrapped). Throws TypeError on values that cannot work. */
export function resolveCompression(
  option: boolean | CompressionOptions | undefined,
): ResolvedCompression | null {
  if (option === undefined || option === false) return null;
  const given: CompressionOptions = option === true ? {} : option;
  if (typeof given !== "object" || given === null) {
    throw new TypeError("compression must be true, false or { encodings, threshold, level }");
  }
  const encodings = given.encodings ?? [...ENCODINGS];
  if (!Array.isArray(encodings) || encodings.length === 0) {
    throw new TypeError(`compression.encodings must list some of ${ENCODINGS.join(", ")}`);
  }
  for (const encoding of encodings) {
    if (!ENCODINGS.includes(encoding)) {
      throw new TypeError(
        `compression.encodings: unknown coding '${String(encoding)}' (use ${ENCODINGS.join(", ")})`,
      );
    }
  }
  const threshold = given.threshold ?? 1024;
  if (!Number.isSafeInteger(threshold) || threshold < 0) {
    throw new TypeError(`compression.threshold must be a whole number of bytes >= 0, got ${threshold}`);
  }
  const level = { ...DEFAULT_LEVEL };
  for (const encoding of ENCODINGS) {
    const value = typeof given.level === "number" ? given.level : given.level?.[encoding];
    if (value === undefined) continue;
    const [min, max] = LEVEL_RANGE[encoding];
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new TypeError(
        `compression.level for ${encoding} must be an integer from ${min} to ${max}, got ${value}`,
      );
    }
    level[encoding] = value;
  }
  return { encodings: [...new Set(encodings)], threshold, level };
}
