/** The app's request and response header rules (`addResponseHeader`, `setRequestHeader`, …), applied per request. */
/** One application-wide header operation, applied in registration order. */
export interface HeaderRule {
  name: string;
  value: string;
  /** `append` adds another value; `set` replaces any value already there. */
  mode: "append" | "set";
}

export function applyHeaderRules(headers: globalThis.Headers, rules: readonly HeaderRule[]): void {
  for (const rule of rules) {
    if (rule.mode === "append") headers.append(rule.name, rule.value);
    else headers.set(rule.name, rule.value);
  }
}

/** Validates a header at configuration time, so a CR/LF never reaches a response. */
export function checkedRule(name: string, value: string, mode: HeaderRule["mode"]): HeaderRule {
  new globalThis.Headers().set(name, value); // throws TypeError on invalid names or CR/LF in values
  // Headers.set trims leading and trailing CR/LF instead of refusing them: refuse them anywhere.
  if (/[\r\n\0]/.test(value)) throw new TypeError(`header '${name}' has CR, LF or NUL in its value`);
  return { name, value, mode };
}
