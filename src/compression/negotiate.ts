/**
 * `Accept-Encoding` negotiation (RFC 9110 §12.5.3): q-values, `*`, `identity;q=0`,
 * the `x-gzip` alias. Pure functions; the result is cached per header value by callers.
 */

export type Encoding = "zstd" | "br" | "gzip";
export const ENCODINGS: readonly Encoding[] = ["zstd", "br", "gzip"];

export interface Negotiated {
  /** Codings the client accepts, best first (client q-value, then the server's order). */
  ranked: Encoding[];
  /** False when the client refused the uncompressed form (`identity;q=0`, or `*;q=0` without `identity`). */
  identityAllowed: boolean;
}

const IDENTITY_ONLY: Negotiated = { ranked: [], identityAllowed: true };
const Q_VALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * Which of `supported` (in the server's order of preference) the client takes. No header, or
 * an empty one, means no coding. A malformed entry (bad q-value) is ignored, never an error:
 * the answer is then simply less compressed.
 */
export function negotiate(header: string | null, supported: readonly Encoding[]): Negotiated {
  if (header === null || header.trim() === "") return IDENTITY_ONLY;
  const q = new Map<string, number>();
  for (const part of header.split(",")) {
    const [rawName = "", ...params] = part.split(";");
    const name = rawName.trim().toLowerCase();
    if (name === "") continue;
    let weight = 1;
    let valid = true;
    for (const param of params) {
      const eq = param.indexOf("=");
      if (eq === -1) continue;
      if (param.slice(0, eq).trim().toLowerCase() !== "q") continue;
      const value = param.slice(eq + 1).trim();
      if (!Q_VALUE.test(value)) valid = false;
      else weight = Number(value);
    }
    if (!valid) continue;
    const key = name === "x-gzip" ? "gzip" : name;
    // Several entries for one coding: the most favourable one counts.
    q.set(key, Math.max(weight, q.get(key) ?? 0));
  }
  const star = q.get("*");
  const weightOf = (name: string): number => q.get(name) ?? star ?? 0;
  // Identity is acceptable unless refused; it competes with the codings only when the client names it.
  const named = q.get("identity");
  const identity = named ?? (star === 0 ? 0 : 1);
  const ranked = supported
    .map((encoding, order) => ({ encoding, weight: weightOf(encoding), order }))
    .filter((entry) => entry.weight > 0 && (named === undefined || entry.weight >= named))
    .sort((a, b) => b.weight - a.weight || a.order - b.order)
    .map((entry) => entry.encoding);
  return { ranked, identityAllowed: identity > 0 };
}

/** A small cache of negotiations by header value: clients send a handful of distinct headers. */
export class NegotiationCache {
  private readonly cache = new Map<string, Negotiated>();
  constructor(
    private readonly supported: readonly Encoding[],
    private readonly capacity = 256,
  ) {}

  get(header: string | null): Negotiated {
    if (header === null) return IDENTITY_ONLY;
    let result = this.cache.get(header);
    if (result === undefined) {
      result = negotiate(header, this.supported);
      // Bounded: a client sending a new header every time cannot grow it.
      if (this.cache.size >= this.capacity) this.cache.clear();
      this.cache.set(header, result);
    }
    return result;
  }
}
