/**
 * The value of one flag, checked against its entry in the flag table: strict integers in range,
 * enum members (log levels by their aliases too), non-empty strings. Every message names the flag
 * as the user typed it.
 */
import { LOG_LEVELS, parseLogLevel } from "../log/logger.ts";
import { FlagError } from "./flag-error.ts";
import type { FlagDef } from "./flag-table.ts";

export type FlagValue = string | number | boolean;

export function flagValue(def: FlagDef, shown: string, raw: string): FlagValue {
  switch (def.kind) {
    case "integer":
      return parseInteger(raw, shown, def.min ?? 0, def.max ?? Number.MAX_SAFE_INTEGER);
    case "enum": {
      if (def.name === "log-level") {
        const level = parseLogLevel(raw);
        if (!level)
          throw new FlagError(`${shown} must be one of ${LOG_LEVELS.join(", ")}, got ${quote(raw)}`);
        return level;
      }
      const value = raw.toLowerCase();
      if (!def.options?.includes(value)) {
        throw new FlagError(`${shown} must be one of ${def.options?.join(", ")}, got ${quote(raw)}`);
      }
      return value;
    }
    default:
      if (raw.trim() === "") throw new FlagError(`${shown} needs a non-empty value`);
      return raw;
  }
}

/** Strict decimal integer in [min, max]: no sign, no fraction, no exponent, no hex. */
export function parseInteger(raw: string, shown: string, min: number, max: number): number {
  const text = raw.trim();
  const value = /^\d{1,9}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new FlagError(`${shown} must be an integer from ${min} to ${max}, got ${quote(raw)}`);
  }
  return value;
}

export function quote(value: string): string {
  return JSON.stringify(value);
}
