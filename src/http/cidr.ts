/**
 * Lists of addresses and CIDR ranges (`10.0.0.0/8`, `2001:db8::/32`, `192.0.2.1`), read once when
 * the app is declared and matched against a client's address: the trusted proxies of `trustProxy`
 * and the lists of `ipFilter` (docs/client-address.md). An IPv4-mapped range or address
 * (`::ffff:10.0.0.0/104`) is folded to IPv4, as addresses are, so one rule covers both spellings.
 */
import { type IpBytes, parseIp } from "./ip-address.ts";

interface Range {
  bytes: IpBytes;
  /** Prefix length in bits, for the family of `bytes`. */
  bits: number;
}

/** A parsed list: `contains(address)` is true when the address is in one of its ranges. */
export interface AddressList {
  contains(address: IpBytes): boolean;
  /** The entries as given, for messages and docs. */
  readonly entries: readonly string[];
}

/**
 * Parses a list of addresses and ranges; a mistake is a `TypeError` naming `what` and the entry,
 * thrown when the app is declared (before it serves anything).
 */
export function parseAddressList(entries: unknown, what: string): AddressList {
  if (!Array.isArray(entries)) throw new TypeError(`${what} must be a list of addresses or CIDR ranges`);
  const ranges: Range[] = [];
  for (const entry of entries) {
    if (typeof entry !== "string") {
      throw new TypeError(`${what}: ${JSON.stringify(entry)} is not an address or CIDR range`);
    }
    ranges.push(parseRange(entry, what));
  }
  const v4 = ranges.filter((range) => range.bytes.length === 4);
  const v6 = ranges.filter((range) => range.bytes.length === 16);
  return {
    entries: [...entries] as string[],
    contains(address) {
      const list = address.length === 4 ? v4 : v6;
      for (const range of list) if (inRange(address, range)) return true;
      return false;
    },
  };
}

function parseRange(entry: string, what: string): Range {
  const text = entry.trim();
  const slash = text.indexOf("/");
  const bytes = parseIp(slash === -1 ? text : text.slice(0, slash));
  if (bytes === null) throw new TypeError(`${what}: '${entry}' is not an IP address or CIDR range`);
  if (slash === -1) return { bytes, bits: bytes.length * 8 };
  const bitsText = text.slice(slash + 1);
  // The prefix is written for the family as written: `::ffff:10.0.0.0/104` is IPv4's /8.
  const written = text.slice(0, slash).includes(":") ? 128 : 32;
  const bits = /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : Number.NaN;
  if (!(bits >= 0 && bits <= written)) {
    throw new TypeError(`${what}: '${entry}' has a bad prefix length (0–${written})`);
  }
  if (bytes.length === 4 && written === 128) {
    if (bits < 96) throw new TypeError(`${what}: '${entry}' is wider than the IPv4-mapped range (/96)`);
    return { bytes, bits: bits - 96 };
  }
  return { bytes, bits };
}

function inRange(address: IpBytes, range: Range): boolean {
  const { bytes, bits } = range;
  let i = 0;
  for (; i + 8 <= bits; i += 8) if (address[i >> 3] !== bytes[i >> 3]) return false;
  if (i === bits) return true;
  const mask = (0xff << (8 - (bits - i))) & 0xff;
  return ((address[i >> 3] as number) & mask) === ((bytes[i >> 3] as number) & mask);
}
