/**
 * The proxy headers, parsed into hops (docs/client-address.md): `Forwarded` (RFC 7239) and
 * `X-Forwarded-For`/`-Proto`/`-Host`. Each proxy appends one hop (whom it received the request
 * from, the scheme and host that hop asked for), so the list reads client first, nearest proxy
 * last. Nothing here decides whom to believe: src/http/client-address.ts walks the hops from the
 * right, past the trusted proxies only. Read only when the socket is a trusted proxy.
 */

import { type IpBytes, parseIp } from "./ip-address.ts";
import { isToken } from "./token.ts";

/** One hop: what one proxy wrote about the node it received the request from. */
export interface Hop {
  /** The node's address; `null` for `unknown`, an obfuscated name (`_hidden`), a bad value or no `for`. */
  address: IpBytes | null;
  /** The hop cannot be read at all (bad syntax): nothing at or left of it is believed. */
  malformed: boolean;
  /** `http`/`https`, when this hop says (`Forwarded: proto=`). */
  proto?: string;
  /** The Host the client asked for, when this hop says (`Forwarded: host=`). */
  host?: string;
}

const MALFORMED: Hop = Object.freeze({ address: null, malformed: true });

/** A Host value: a name, IPv4 or `[IPv6]`, and an optional port. Anything else is ignored. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~-]+)(?::\d{1,5})?$/;

/** The forwarded scheme, when it is one a URL of this server can have. */
export function forwardedProto(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const lower = value.trim().toLowerCase();
  return lower === "http" || lower === "https" ? lower : undefined;
}

export function forwardedHost(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const host = value.trim();
  return host.length <= 255 && HOST.test(host) ? host.toLowerCase() : undefined;
}

/**
 * A node as proxies write it: `192.0.2.43`, `192.0.2.43:47011`, `[2001:db8::17]:4711`, and in
 * `X-Forwarded-For` also a bare IPv6 address. `null` when it is not an address (`unknown`,
 * `_obfuscated`, garbage).
 */
export function nodeAddress(node: string, bareIpv6: boolean): IpBytes | null {
  const text = node.trim();
  if (text.startsWith("[")) {
    const close = text.indexOf("]");
    if (close === -1) return null;
    const rest = text.slice(close + 1);
    if (rest !== "" && !/^:\d{1,5}$/.test(rest)) return null;
    const inner = text.slice(1, close);
    return inner.includes(":") ? parseIp(inner) : null;
  }
  const colon = text.indexOf(":");
  if (colon === -1) return parseIp(text);
  // One colon: IPv4 with a port. More: a bare IPv6 address (X-Forwarded-For only; RFC 7239 wants brackets).
  if (text.indexOf(":", colon + 1) === -1) {
    return /^\d{1,5}$/.test(text.slice(colon + 1)) ? parseIp(text.slice(0, colon)) : null;
  }
  return bareIpv6 ? parseIp(text) : null;
}

/** `X-Forwarded-For: client, proxy1, proxy2`: one hop per entry; an empty entry is malformed. */
export function parseXForwardedFor(header: string): Hop[] {
  const hops: Hop[] = [];
  for (const entry of header.split(",")) {
    const trimmed = entry.trim();
    if (trimmed === "") hops.push(MALFORMED);
    else hops.push({ address: nodeAddress(trimmed, true), malformed: false });
  }
  return hops;
}

/** A comma-separated header's values (`X-Forwarded-Proto: https, http`), trimmed. */
export function listValues(header: string | null): string[] {
  if (header === null) return [];
  return header.split(",").map((value) => value.trim());
}

/**
 * `Forwarded: for=192.0.2.60;proto=http;by=203.0.113.43, for="[2001:db8:cafe::17]:4711"`: one
 * hop per element. An element that breaks the grammar (an unclosed quote, a pair without `=`, a
 * parameter twice) is a malformed hop; values it does not use (`by`, extensions) are skipped.
 */
export function parseForwarded(header: string): Hop[] {
  const hops: Hop[] = [];
  let i = 0;
  const length = header.length;
  let element: Record<string, string> = {};
  let broken = false;
  const finish = () => {
    if (broken) hops.push(MALFORMED);
    else {
      const hop: Hop = {
        address: element.for === undefined ? null : nodeAddress(element.for, false),
        malformed: false,
      };
      const proto = forwardedProto(element.proto);
      if (proto !== undefined) hop.proto = proto;
      const host = forwardedHost(element.host);
      if (host !== undefined) hop.host = host;
      hops.push(hop);
    }
    element = {};
    broken = false;
  };
  while (i <= length) {
    // One pair: token "=" (token / quoted-string), then ";" (next pair), "," (next element) or the end.
    while (i < length && (header[i] === " " || header[i] === "\t")) i++;
    if (i >= length || header[i] === ",") {
      // An empty element (`a, , b`) is allowed by the list syntax; the end closes the last one.
      if (Object.keys(element).length > 0 || broken) finish();
      i++;
      continue;
    }
    const equals = header.indexOf("=", i);
    const name = equals === -1 ? "" : header.slice(i, equals).trim().toLowerCase();
    if (!isToken(name)) {
      broken = true;
      i = skipToNextElement(header, i);
      continue;
    }
    let value: string;
    let at = equals + 1;
    if (header[at] === '"') {
      let text = "";
      at++;
      let closed = false;
      while (at < length) {
        const char = header[at] as string;
        if (char === "\\" && at + 1 < length) {
          text += header[at + 1];
          at += 2;
        } else if (char === '"') {
          closed = true;
          at++;
          break;
        } else {
          text += char;
          at++;
        }
      }
      if (!closed) {
        broken = true;
        i = length;
        continue;
      }
      value = text;
    } else {
      const start = at;
      while (at < length && header[at] !== ";" && header[at] !== "," && header[at] !== " ") at++;
      value = header.slice(start, at);
      if (!isToken(value) && !/^[0-9.:[\]]+$/.test(value)) broken = true;
    }
    if (element[name] !== undefined) broken = true; // RFC 7239 §4: each parameter at most once.
    element[name] = value;
    while (at < length && (header[at] === " " || header[at] === "\t")) at++;
    if (at < length && header[at] === ";") at++;
    else if (at < length && header[at] !== ",") {
      broken = true;
      at = skipToNextElement(header, at);
    }
    i = at;
  }
  return hops;
}

/** The index of the next `,` outside quotes (or the end): where a broken element ends. */
function skipToNextElement(header: string, from: number): number {
  let quoted = false;
  for (let i = from; i < header.length; i++) {
    const char = header[i];
    if (char === "\\" && quoted) i++;
    else if (char === '"') quoted = !quoted;
    else if (char === "," && !quoted) return i;
  }
  return header.length;
}
