/** Anything with Web-`Headers`-like get/set (the webfw `Headers` wrapper or the Web one). */
interface HeaderBag {
  get(name: string): string | null;
  set(name: string, value: string): void;
}

/**
 * Adds request header names to `Vary` without repeating one already there
 * (compared case-insensitively); `Vary: *` already covers everything.
 */
export function appendVary(headers: HeaderBag, ...names: string[]): void {
  const current = headers.get("vary");
  if (current === null || current.trim() === "") {
    headers.set("vary", names.join(", "));
    return;
  }
  const present = new Set(current.split(",").map((name) => name.trim().toLowerCase()));
  if (present.has("*")) return;
  const missing = names.filter((name) => !present.has(name.toLowerCase()));
  if (missing.length > 0) headers.set("vary", `${current}, ${missing.join(", ")}`);
}
