/** The `responseCheck` option (app and route), docs/responses.md "Response contracts". */

/**
 * What happens when a handler's value does not match its declared response schema:
 * `"fail"` answers 500 and logs, `"log"` logs and sends the stripped value, `"off"` checks nothing
 * and sends the value as it is.
 */
export type ResponseCheckMode = "fail" | "log" | "off";

const MODES: readonly string[] = ["fail", "log", "off"];

/** The mode, checked at construction or start so that a typo fails early. */
export function responseCheckMode(value: unknown, where: string): ResponseCheckMode {
  if (typeof value === "string" && MODES.includes(value)) return value as ResponseCheckMode;
  throw new TypeError(`${where} must be "fail", "log" or "off", got ${JSON.stringify(value)}`);
}
