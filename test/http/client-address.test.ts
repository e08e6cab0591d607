/**
 * `trustProxy` over real sockets (docs/client-address.md): the app on 127.0.0.1 and on [::1],
 * behind one and two real forwarding proxies (test/helpers/forwarding-proxy.ts) that listen on
 * the other family, so each proxy sees its client at an address the app does not trust. Both
 * header styles, trust by address list and by hop count, and spoofed headers from a peer that
 * is not trusted. `request.ipAddr`, `request.url` (scheme, host) are what the handler sees.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import type { TrustProxy } from "../../src/types.ts";
import { type ForwardingProxy, startForwardingProxy } from "../helpers/forwarding-proxy.ts";

const servers: ServerHandle[] = [];
const proxies: ForwardingProxy[] = [];
afterEach(async () => {
  for (const proxy of proxies.splice(0)) proxy.stop();
  for (const server of servers.splice(0)) await server.stop(true);
});

interface Seen {
  ip: string | null;
  scheme: string;
  host: string;
  url: string;
}

async function serve(
  host: string,
  trustProxy: TrustProxy | undefined,
  proxyHeaders: "x-forwarded" | "forwarded" = "x-forwarded",
): Promise<ServerHandle> {
  const app = new Webfw(import.meta.path, { trustProxy, proxyHeaders });
  app.get("/who", (request) => ({
    ip: request.ipAddr,
    scheme: request.url.scheme,
    host: request.url.host,
    url: String(request.url),
  }));
  const server = await app.start({ host, port: 0, accessLog: false });
  servers.push(server);
  return server;
}

/** Proxies in front of `upstream`, listening on `hosts` in order from the client (the first) inward. */
function chain(upstream: string, hosts: string[], headers: "x-forwarded" | "forwarded"): string {
  let next = upstream;
  // The proxy nearest the client ends TLS (says https); the ones behind it speak http.
  for (let i = hosts.length - 1; i >= 0; i--) {
    const proxy = startForwardingProxy({
      hostname: hosts[i] as string,
      upstream: next,
      headers,
      scheme: i === 0 ? "https" : "http",
    });
    proxies.push(proxy);
    next = proxy.url;
  }
  return next;
}

async function who(base: string, headers: Record<string, string> = {}): Promise<Seen> {
  const response = await fetch(`${base}/who?q=1`, { headers });
  expect(response.status).toBe(200);
  return (await response.json()) as Seen;
}

// What a client writes itself to pass for someone else: never believed from an untrusted hop.
const SPOOF = {
  "x-forwarded-for": "6.6.6.6",
  "x-forwarded-proto": "gopher",
  "x-forwarded-host": "evil.example",
  forwarded: 'for=6.6.6.6;proto=https;host="evil.example"',
};

// The app on one family, its proxies on the other: each proxy's client (the test) is at an
// address of the other family, which the app's trusted list (its own loopback) does not name.
const FAMILIES = [
  { name: "IPv4 app on 127.0.0.1", app: "127.0.0.1", trusted: "127.0.0.1", other: "::1", client: "::1" },
  { name: "IPv6 app on [::1]", app: "::1", trusted: "::1", other: "127.0.0.1", client: "127.0.0.1" },
];

for (const family of FAMILIES) {
  describe(family.name, () => {
    for (const headers of ["x-forwarded", "forwarded"] as const) {
      test(`one trusted proxy (${headers}): the proxy's client, scheme and host; the client's own spoofs ignored`, async () => {
        const app = await serve(family.app, [family.trusted], headers);
        // The proxy listens on the other family (the test reaches it there) and connects to the app
        // over the app's (the app sees it at its trusted loopback).
        const proxy = startForwardingProxy({
          hostname: family.other,
          upstream: app.url,
          headers,
          scheme: "https",
        });
        proxies.push(proxy);
        const seen = await who(proxy.url, SPOOF);
        const proxyHost = new URL(proxy.url).host;
        expect(seen.ip).toBe(family.client);
        expect(seen.scheme).toBe("https");
        expect(seen.host).toBe(proxyHost);
        expect(seen.url).toBe(`https://${proxyHost}/who?q=1`);
      });

      test(`two trusted proxies (${headers}): the walk skips both; a hop count of 2 says the same`, async () => {
        for (const trust of [[family.trusted], 2] as TrustProxy[]) {
          const app = await serve(family.app, trust, headers);
          // client →(other family) outer proxy on `other` →(app family) inner proxy →(app family) app.
          const front = chain(app.url, [family.other, family.app], headers);
          const seen = await who(front, SPOOF);
          expect(seen.ip).toBe(family.client);
          expect(seen.scheme).toBe("https");
          expect(seen.host).toBe(new URL(front).host);
        }
      });
    }

    test("a hop count of 1 behind two proxies trusts only the nearest: the client is the outer proxy", async () => {
      const app = await serve(family.app, 1);
      const front = chain(app.url, [family.other, family.app], "x-forwarded");
      const seen = await who(front, SPOOF);
      // The inner proxy received the request from the outer one, which listens on `other`
      // and connects inward over the app's family.
      expect(seen.ip).toBe(family.trusted);
      // The inner proxy's hop says http (the outer one spoke http to it).
      expect(seen.scheme).toBe("http");
    });

    test("spoofed headers from a peer that is not trusted change nothing", async () => {
      const app = await serve(family.app, ["10.0.0.0/8", "fd00::/8"]);
      const seen = await who(app.url, SPOOF);
      expect(seen.ip).toBe(family.trusted);
      expect(seen.scheme).toBe("http");
      expect(seen.host).toBe(new URL(app.url).host);
      const forwarded = await serve(family.app, ["10.0.0.0/8"], "forwarded");
      expect((await who(forwarded.url, SPOOF)).ip).toBe(family.trusted);
    });

    test("without trustProxy the headers are not even read", async () => {
      const app = await serve(family.app, undefined);
      const seen = await who(app.url, SPOOF);
      expect(seen).toEqual({
        ip: family.trusted,
        scheme: "http",
        host: new URL(app.url).host,
        url: `${app.url}/who?q=1`,
      });
    });
  });
}

describe("the walk, on one trusted socket (the test is the proxy)", () => {
  test("X-Forwarded-For: mapped addresses fold, ports and brackets go, unknown and malformed stop the walk", async () => {
    const app = await serve("127.0.0.1", ["127.0.0.1", "10.0.0.0/8"]);
    const ip = async (xff: string) => (await who(app.url, { "x-forwarded-for": xff })).ip;
    expect(await ip("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(await ip("[2001:DB8::7]:4711, 10.0.0.2")).toBe("2001:db8::7");
    expect(await ip("198.51.100.7:80")).toBe("198.51.100.7");
    // Right to left: a forged entry left of the real client is never reached.
    expect(await ip("6.6.6.6, 203.0.113.9, 10.0.0.2")).toBe("203.0.113.9");
    // An unknown hop written by a trusted proxy: the nearest trusted node is all we know.
    expect(await ip("203.0.113.9, unknown, 10.0.0.2")).toBe("10.0.0.2");
    // Malformed: the walk stops before it.
    expect(await ip("203.0.113.9,,10.0.0.2")).toBe("10.0.0.2");
    expect(await ip("not an address at all")).toBe("127.0.0.1");
    // Every hop trusted: the leftmost is the client.
    expect(await ip("10.0.0.9, 10.0.0.2")).toBe("10.0.0.9");
  });

  test("Forwarded: quoted IPv6 with a port, obfuscated names, malformed elements ignored safely", async () => {
    const app = await serve("127.0.0.1", ["127.0.0.1", "10.0.0.0/8"], "forwarded");
    const seen = (forwarded: string) => who(app.url, { forwarded });
    expect((await seen('for="[2001:db8:cafe::17]:4711";proto=https;host=shop.example')).ip).toBe(
      "2001:db8:cafe::17",
    );
    const obfuscated = await seen("for=_hidden;proto=https, for=10.0.0.2");
    expect(obfuscated.ip).toBe("10.0.0.2");
    expect(obfuscated.scheme).toBe("https");
    for (const bad of ['for="203.0.113.9', "for=203.0.113.9;for=1.2.3.4", "garbage", ";;;,,=", '"'])
      expect(await seen(bad)).toMatchObject({ ip: "127.0.0.1", scheme: "http" });
    // X-Forwarded-For is not read in this mode, so a client cannot use it either.
    expect((await who(app.url, { "x-forwarded-for": "203.0.113.9" })).ip).toBe("127.0.0.1");
  });

  test("trustProxy: true believes every hop (the leftmost is the client)", async () => {
    const app = await serve("127.0.0.1", true);
    expect((await who(app.url, { "x-forwarded-for": "203.0.113.1, 198.51.100.2" })).ip).toBe("203.0.113.1");
  });

  test("bad trustProxy and proxyHeaders are TypeErrors when the app is made", () => {
    const make = (options: object) => () => new Webfw(import.meta.path, options);
    expect(make({ trustProxy: ["10.0.0.0/33"] })).toThrow(
      /trustProxy: '10.0.0.0\/33' has a bad prefix length/,
    );
    expect(make({ trustProxy: ["proxy.internal"] })).toThrow(TypeError);
    expect(make({ trustProxy: -1 })).toThrow(/hop count must be a non-negative integer/);
    expect(make({ trustProxy: "10.0.0.1" })).toThrow(/trustProxy must be true, a hop count or a list/);
    expect(make({ trustProxy: true, proxyHeaders: "x-real-ip" })).toThrow(/proxyHeaders must be/);
  });
});

describe("secure cookies follow the client's scheme", () => {
  test('sessions secure: "auto": Secure over the HTTPS a trusted proxy reports, never from a spoof', async () => {
    const make = async (trustProxy: TrustProxy | undefined) => {
      const app = new Webfw(import.meta.path, { trustProxy });
      app.sessions({ secretKey: "a-secret-key-of-at-least-32-bytes!!", secure: "auto" });
      app.get("/login", (request) => {
        request.session?.set("user", "ada");
        return "in";
      });
      const server = await app.start({ port: 0, accessLog: false });
      servers.push(server);
      return (headers: Record<string, string>) =>
        fetch(`${server.url}/login`, { headers }).then((r) => r.headers.get("set-cookie") ?? "");
    };
    const behindProxy = await make(["127.0.0.1"]);
    expect(await behindProxy({ "x-forwarded-proto": "https" })).toContain("; Secure");
    expect(await behindProxy({ "x-forwarded-proto": "http" })).not.toContain("Secure");
    const untrusted = await make(["10.0.0.0/8"]);
    const spoofed = await untrusted({ "x-forwarded-proto": "https" });
    expect(spoofed).toStartWith("session=");
    expect(spoofed).not.toContain("Secure");
    expect(() =>
      new Webfw(import.meta.path).sessions({
        secretKey: "a-secret-key-of-at-least-32-bytes!!",
        secure: "auto",
        sameSite: "None",
      }),
    ).toThrow(/secure "auto" cannot go with sameSite None/);
  });
});
