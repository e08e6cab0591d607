/**
 * examples/behind-proxy.ts behind a real forwarding proxy (test/helpers/forwarding-proxy.ts):
 * the client's address, URL, Secure cookie, office-only admin area and denied range, all from
 * what the trusted proxy reports; the same headers straight from a client are not believed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import app from "../../examples/behind-proxy.ts";
import type { ServerHandle } from "../../src/index.ts";
import { type ForwardingProxy, startForwardingProxy } from "../helpers/forwarding-proxy.ts";

describe("examples/behind-proxy.ts", () => {
  let server: ServerHandle;
  let proxy: ForwardingProxy;
  beforeAll(async () => {
    server = await app.start({ port: 0, accessLog: false });
    // A TLS-ending proxy on loopback, which the example trusts by default. The test, also on
    // loopback, stands for a CDN in front of it: it writes the hop of the client it "saw".
    proxy = startForwardingProxy({
      hostname: "127.0.0.1",
      upstream: server.url,
      headers: "x-forwarded",
      scheme: "https",
    });
  });
  afterAll(async () => {
    proxy.stop();
    await server.stop(true);
  });

  /** A request through the proxy from `client` (written as the hop in front of the proxy, like a CDN would). */
  const via = (path: string, client: string, init: RequestInit = {}) =>
    fetch(`${proxy.url}${path}`, { ...init, headers: { "x-forwarded-for": client } });

  test("whoami: the client and the URL the proxy reports", async () => {
    const response = await via("/whoami", "203.0.113.7");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      ip: "203.0.113.7",
      url: `https://${new URL(proxy.url).host}/whoami`,
    });
    expect(response.headers.get("ratelimit")).toMatch(/^"app";r=99;t=\d+$/);
  });

  test("the session cookie is Secure: the client came over HTTPS to the proxy", async () => {
    const response = await via("/login", "203.0.113.7", { method: "POST" });
    expect(response.status).toBe(200);
    expect(response.headers.get("set-cookie")).toContain("; Secure");
  });

  test("the admin area: the office network passes, others get the 403 problem", async () => {
    expect((await via("/admin/stats", "198.51.100.20")).status).toBe(200);
    expect((await via("/admin/stats", "2001:db8:cafe:1::9")).status).toBe(200);
    const refused = await via("/admin/stats", "203.0.113.7");
    expect(refused.status).toBe(403);
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect((await via("/whoami", "::ffff:192.0.2.10")).status).toBe(403);
  });

  test("a hop the client forged, left of the one its first trusted hop saw, is never reached", async () => {
    // 192.0.2.1 is denied: had the walk believed it, this would be a 403.
    const response = await via("/whoami", "192.0.2.1, 203.0.113.9");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ip: "203.0.113.9" });
  });
});
