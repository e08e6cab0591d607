/**
 * The pieces of the client's address (docs/client-address.md) without a server: canonical
 * addresses, CIDR lists, the `Forwarded` (RFC 7239) and `X-Forwarded-For` parsers, including
 * malformed headers, which must never crash and never be believed.
 */
import { describe, expect, test } from "bun:test";
import { parseAddressList } from "../../src/http/cidr.ts";
import { parseForwarded, parseXForwardedFor } from "../../src/http/forwarded.ts";
import { addressGroup, formatIp, normaliseIp, parseIp } from "../../src/http/ip-address.ts";

const text = (bytes: Uint8Array | null) => (bytes === null ? null : formatIp(bytes));

describe("canonical addresses", () => {
  test("IPv4 as is; leading zeros, out-of-range parts and short forms are not addresses", () => {
    expect(normaliseIp("198.51.100.7")).toBe("198.51.100.7");
    for (const bad of ["01.2.3.4", "256.1.1.1", "1.2.3", "1.2.3.4.5", "1..2.3", "", "abc", "[::1]"])
      expect(normaliseIp(bad)).toBeNull();
  });

  test("IPv4-mapped IPv6 folds to IPv4, in any spelling", () => {
    expect(normaliseIp("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(normaliseIp("::FFFF:c633:6407")).toBe("198.51.100.7");
    expect(normaliseIp("0:0:0:0:0:ffff:198.51.100.7")).toBe("198.51.100.7");
  });

  test("IPv6 is written as RFC 5952 says (lowercase, longest zero run as ::, zone dropped)", () => {
    expect(normaliseIp("2001:DB8:0:0:1:0:0:1")).toBe("2001:db8::1:0:0:1");
    expect(normaliseIp("2001:db8:0:0:0:0:2:1")).toBe("2001:db8::2:1");
    expect(normaliseIp("1:0:0:2:0:0:0:3")).toBe("1:0:0:2::3");
    expect(normaliseIp("::")).toBe("::");
    expect(normaliseIp("::1")).toBe("::1");
    expect(normaliseIp("fe80::1%eth0")).toBe("fe80::1");
    for (const bad of [
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "1:2:3:4:5:6:7",
      "12345::",
      ":1::",
      "1.2.3.4::",
      "g::1",
    ])
      expect(normaliseIp(bad)).toBeNull();
  });

  test("rate-limit groups: IPv6 cut to its prefix, IPv4 untouched", () => {
    expect(addressGroup("2001:db8:1:2:3:4:5:6", 64)).toBe("2001:db8:1:2::/64");
    expect(addressGroup("2001:db8:1:2:ffff:4:5:6", 64)).toBe("2001:db8:1:2::/64");
    expect(addressGroup("2001:db8:1:2ff:3:4:5:6", 60)).toBe("2001:db8:1:2f0::/60");
    expect(addressGroup("2001:db8:1:2:3:4:5:6", 128)).toBe("2001:db8:1:2:3:4:5:6");
    expect(addressGroup("198.51.100.7", 64)).toBe("198.51.100.7");
  });
});

describe("CIDR lists", () => {
  test("ranges and single addresses of both families; mapped ranges cover IPv4", () => {
    const list = parseAddressList(["10.0.0.0/8", "192.0.2.1", "2001:db8::/32", "::ffff:172.16.0.0/108"], "x");
    const has = (address: string) => list.contains(parseIp(address) as Uint8Array);
    expect(has("10.255.1.2")).toBe(true);
    expect(has("11.0.0.1")).toBe(false);
    expect(has("192.0.2.1")).toBe(true);
    expect(has("192.0.2.2")).toBe(false);
    expect(has("2001:db8:ffff::1")).toBe(true);
    expect(has("2001:db9::1")).toBe(false);
    expect(has("::ffff:10.0.0.1")).toBe(true);
    expect(has("172.16.5.5")).toBe(true);
    expect(has("172.32.0.1")).toBe(false);
  });

  test("a bad entry is a TypeError that names the option and the entry", () => {
    expect(() => parseAddressList(["10.0.0.0/33"], "ipFilter of the app: deny")).toThrow(
      new TypeError("ipFilter of the app: deny: '10.0.0.0/33' has a bad prefix length (0–32)"),
    );
    expect(() => parseAddressList(["10.0.0.0/x"], "x")).toThrow(/bad prefix length/);
    expect(() => parseAddressList(["example.com"], "x")).toThrow(/'example.com' is not an IP address/);
    expect(() => parseAddressList([42], "x")).toThrow(TypeError);
    expect(() => parseAddressList("10.0.0.0/8", "x")).toThrow(/must be a list/);
  });
});

describe("Forwarded (RFC 7239)", () => {
  test("the RFC's examples: quoted values, IPv6 in brackets with ports, several elements", () => {
    const hops = parseForwarded(
      'for="_gazonk", For="[2001:db8:cafe::17]:4711", for=192.0.2.60;proto=http;by=203.0.113.43, for=192.0.2.43, for=unknown',
    );
    expect(hops.map((hop) => [text(hop.address), hop.malformed])).toEqual([
      [null, false],
      ["2001:db8:cafe::17", false],
      ["192.0.2.60", false],
      ["192.0.2.43", false],
      [null, false],
    ]);
    expect(hops[2]?.proto).toBe("http");
  });

  test("proto and host are kept only when they are a scheme of this server and a Host value", () => {
    const [hop] = parseForwarded('for="192.0.2.1:8080";proto=HTTPS;host="Shop.Example:8443"');
    expect(text(hop?.address ?? null)).toBe("192.0.2.1");
    expect(hop?.proto).toBe("https");
    expect(hop?.host).toBe("shop.example:8443");
    const [odd] = parseForwarded('for=192.0.2.1;proto=gopher;host="a b"');
    expect(odd?.proto).toBeUndefined();
    expect(odd?.host).toBeUndefined();
  });

  test("malformed elements are marked, never thrown, and do not spoil their neighbours", () => {
    const cases: [string, boolean[]][] = [
      ['for="192.0.2.1', [true]], // unclosed quote
      ["for", [true]], // no value
      ["for=192.0.2.1;for=192.0.2.2", [true]], // a parameter twice
      ["for=192.0.2.1 junk, for=192.0.2.2", [true, false]],
      ["=x, for=192.0.2.2", [true, false]],
      ["for=192.0.2.1,, for=192.0.2.2", [false, false]], // empty list members are allowed
    ];
    for (const [header, malformed] of cases)
      expect(parseForwarded(header).map((hop) => hop.malformed)).toEqual(malformed);
    // A bare IPv6 address (unquoted, no brackets) is not a node RFC 7239 allows.
    expect(parseForwarded("for=2001:db8::1")[0]?.address).toBeNull();
    expect(parseForwarded('for="[2001:db8::1"')[0]?.address).toBeNull();
  });
});

describe("X-Forwarded-For", () => {
  test("entries with ports and brackets; unknown values have no address; empty entries are malformed", () => {
    const hops = parseXForwardedFor(
      "203.0.113.7, [2001:db8::1]:443, 2001:db8::2, 198.51.100.1:80, unknown, ",
    );
    expect(hops.map((hop) => [text(hop.address), hop.malformed])).toEqual([
      ["203.0.113.7", false],
      ["2001:db8::1", false],
      ["2001:db8::2", false],
      ["198.51.100.1", false],
      [null, false],
      [null, true],
    ]);
  });
});
