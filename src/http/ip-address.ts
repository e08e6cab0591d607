/**
 * IP addresses as text, parsed and written back in one canonical form (docs/client-address.md):
 * every user of a client's address (rate limits, logs, metrics, IP filters) sees the same string
 * for the same client. IPv4-mapped IPv6 (`::ffff:198.51.100.7`, what a dual-stack socket reports
 * for an IPv4 peer) is folded to IPv4; IPv6 is written as RFC 5952 says (lowercase, the longest
 * run of zero groups as `::`). Plain string work: `node:net` is not loaded for it (idle memory,
 * docs/performance.md).
 */

/** An address as bytes: 4 for IPv4, 16 for IPv6 (a mapped IPv4 address is always 4). */
export type IpBytes = Uint8Array;

/** Parses dotted-quad IPv4 (`0`–`255`, no leading zeros, which some parsers read as octal). */
function parseIpv4(text: string, into: Uint8Array, at: number): boolean {
  let part = 0;
  let digits = 0;
  let index = at;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 0x2e;
    if (code === 0x2e) {
      if (digits === 0 || index - at > 3) return false;
      into[index++] = part;
      part = 0;
      digits = 0;
    } else if (code >= 0x30 && code <= 0x39) {
      if (digits > 0 && part === 0) return false;
      part = part * 10 + code - 0x30;
      if (part > 255) return false;
      digits++;
    } else return false;
  }
  return index - at === 4;
}

/** Parses IPv6 text (with `::`, an embedded IPv4 tail, no zone); `null` when it is not one. */
function parseIpv6(text: string): Uint8Array | null {
  const gap = text.indexOf("::");
  if (gap !== -1 && text.indexOf("::", gap + 1) !== -1) return null;
  const headText = gap === -1 ? text : text.slice(0, gap);
  const tailText = gap === -1 ? "" : text.slice(gap + 2);
  const head = headText === "" ? [] : headText.split(":");
  const tail = tailText === "" ? [] : tailText.split(":");
  const bytes = new Uint8Array(16);
  // Only the address's last group may be an IPv4 tail (`::ffff:1.2.3.4`), worth two words.
  const words = (groups: string[], last: boolean): number[] | null => {
    const out: number[] = [];
    for (let i = 0; i < groups.length; i++) {
      const group = groups[i] as string;
      if (last && i === groups.length - 1 && group.includes(".")) {
        const v4 = new Uint8Array(4);
        if (!parseIpv4(group, v4, 0)) return null;
        out.push(((v4[0] as number) << 8) | (v4[1] as number), ((v4[2] as number) << 8) | (v4[3] as number));
        continue;
      }
      if (group.length === 0 || group.length > 4) return null;
      let value = 0;
      for (let j = 0; j < group.length; j++) {
        const digit = hexDigit(group.charCodeAt(j));
        if (digit < 0) return null;
        value = value * 16 + digit;
      }
      out.push(value);
    }
    return out;
  };
  const headWords = words(head, gap === -1);
  const tailWords = words(tail, true);
  if (headWords === null || tailWords === null) return null;
  const count = headWords.length + tailWords.length;
  if (gap === -1 ? count !== 8 : count > 7) return null;
  headWords.forEach((word, i) => {
    bytes[i * 2] = word >> 8;
    bytes[i * 2 + 1] = word & 0xff;
  });
  const tailAt = 16 - tailWords.length * 2;
  tailWords.forEach((word, i) => {
    bytes[tailAt + i * 2] = word >> 8;
    bytes[tailAt + i * 2 + 1] = word & 0xff;
  });
  return bytes;
}

function hexDigit(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/** True for `::ffff:0:0/96`, IPv4-mapped IPv6. */
function isMapped(bytes: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

/**
 * The bytes of an address written as text (`198.51.100.7`, `2001:db8::1`, `::ffff:198.51.100.7`),
 * mapped IPv4 folded to 4 bytes; `null` when it is not an address. A zone (`fe80::1%eth0`) is dropped.
 */
export function parseIp(text: string): IpBytes | null {
  if (text.length === 0 || text.length > 64) return null;
  if (!text.includes(":")) {
    const v4 = new Uint8Array(4);
    return parseIpv4(text, v4, 0) ? v4 : null;
  }
  const zone = text.indexOf("%");
  const v6 = parseIpv6(zone === -1 ? text : text.slice(0, zone));
  if (v6 === null) return null;
  return isMapped(v6) ? v6.slice(12) : v6;
}

/** The canonical text of an address: dotted IPv4, or RFC 5952 IPv6. */
export function formatIp(bytes: IpBytes): string {
  if (bytes.length === 4) return `${bytes[0]}.${bytes[1]}.${bytes[2]}.${bytes[3]}`;
  const words: number[] = [];
  for (let i = 0; i < 16; i += 2) words.push(((bytes[i] as number) << 8) | (bytes[i + 1] as number));
  // The longest run of two or more zero words becomes `::` (the first when two are as long).
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let end = i;
    while (end < 8 && words[end] === 0) end++;
    if (end - i > bestLength) {
      bestStart = i;
      bestLength = end - i;
    }
    i = end;
  }
  const hex = (from: number, to: number) =>
    words
      .slice(from, to)
      .map((word) => word.toString(16))
      .join(":");
  if (bestStart === -1) return hex(0, 8);
  return `${hex(0, bestStart)}::${hex(bestStart + bestLength, 8)}`;
}

/** An address in its canonical text; `null` when `text` is not an address. */
export function normaliseIp(text: string): string | null {
  const bytes = parseIp(text);
  return bytes === null ? null : formatIp(bytes);
}

/**
 * The canonical text of a socket's address: Bun reports an IPv4 peer of a dual-stack socket as
 * `::ffff:a.b.c.d`, and IPv6 in its own spelling. Plain IPv4, by far the common case, is returned
 * as is without parsing.
 */
export function normaliseSocketAddress(address: string): string {
  if (!address.includes(":")) return address;
  return normaliseIp(address) ?? address;
}

/**
 * The key an address is counted under by a rate limit: IPv4 as is, IPv6 cut to its first
 * `prefix` bits and written as a CIDR range (`2001:db8:1:2::/64`): one client usually holds a
 * whole /64, so counting each address apart would give it 2^64 limits.
 */
export function addressGroup(address: string, prefix: number): string {
  if (prefix >= 128 || !address.includes(":")) return address;
  const bytes = parseIp(address);
  if (bytes === null || bytes.length === 4) return address;
  const cut = new Uint8Array(16);
  for (let bit = 0; bit < prefix; bit += 8) {
    const keep = Math.min(8, prefix - bit);
    cut[bit >> 3] = (bytes[bit >> 3] as number) & ((0xff << (8 - keep)) & 0xff);
  }
  return `${formatIp(cut)}/${prefix}`;
}
