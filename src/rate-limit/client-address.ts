/**
 * The client's address for rate limiting: the socket's, or, when the socket
 * is a trusted proxy, the nearest address in `X-Forwarded-For` that is not
 * one of the trusted proxies (read right to left: each proxy appends the
 * address it received the request from, so only the entries the trusted
 * proxies appended are believed; what a client writes there itself is to the
 * left of them and never chosen while a trusted hop remains).
 */
import { BlockList, isIP } from "node:net";

export type AddressResolver = (socketAddress: string | null, forwardedFor: string | null) => string | null;

/** `trustProxy` entries: an address (`10.0.0.1`, `::1`) or a CIDR range (`10.0.0.0/8`, `fd00::/8`). */
export function trustedProxies(entries: readonly string[], where: string): BlockList | null {
  if (entries.length === 0) return null;
  const list = new BlockList();
  for (const entry of entries) {
    const [address = "", bits] = entry.trim().split("/");
    const family = isIP(address);
    if (family === 0)
      throw new TypeError(`trustProxy of ${where}: '${entry}' is not an IP address or CIDR range`);
    const type = family === 4 ? "ipv4" : "ipv6";
    if (bits === undefined) list.addAddress(address, type);
    else {
      const prefix = Number(bits);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) {
        throw new TypeError(`trustProxy of ${where}: '${entry}' has a bad prefix length`);
      }
      list.addSubnet(address, prefix, type);
    }
  }
  return list;
}

export function addressResolver(trusted: BlockList | null): AddressResolver {
  if (trusted === null) return (socketAddress) => socketAddress;
  const isTrusted = (address: string): boolean => {
    const family = isIP(address);
    return family !== 0 && trusted.check(address, family === 4 ? "ipv4" : "ipv6");
  };
  return (socketAddress, forwardedFor) => {
    if (socketAddress === null || forwardedFor === null || !isTrusted(socketAddress)) return socketAddress;
    const hops = forwardedFor.split(",");
    let client = socketAddress;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = (hops[i] as string).trim();
      // A malformed entry ends the walk: nothing to its left can be believed either.
      if (isIP(hop) === 0) break;
      client = hop;
      if (!isTrusted(hop)) break;
    }
    return client;
  };
}
