/**
 * Issue 31 (docs/client-address.md): one client, one count. Behind a trusted proxy, 20 IPv6
 * addresses of one /64 share one limit (they were 20 limits), `198.51.100.7` and
 * `::ffff:198.51.100.7` are one client (they were two), and a dual-stack socket's
 * `::ffff:127.0.0.1` is `127.0.0.1` for every reader. The access log keeps the full address.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import { logger, stderrSink } from "../../src/log/logger.ts";

const servers: ServerHandle[] = [];
const level = logger.level;
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop(true);
  logger.setSink(stderrSink);
  logger.setLevel(level);
});

async function limited(options: { limit: number; ipv6Subnet?: number | false }, accessLog = false) {
  const app = new Webfw(import.meta.path, { trustProxy: ["127.0.0.1"] });
  app.rateLimit({ windowMs: 60_000, ...options });
  app.get("/", (request) => request.ipAddr);
  const server = await app.start({ port: 0, accessLog });
  servers.push(server);
  return (xff: string) => fetch(`${server.url}/`, { headers: { "x-forwarded-for": xff } });
}

const inOneSlash64 = Array.from(
  { length: 20 },
  (_, i) => `2001:db8:1:2:${(i + 1).toString(16)}::${i * 7 + 1}`,
);

describe("rate-limit keys of one client", () => {
  test("20 IPv6 addresses of one /64 share one limit", async () => {
    const get = await limited({ limit: 5 });
    const statuses: number[] = [];
    for (const address of inOneSlash64) statuses.push((await get(address)).status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.slice(5).every((status) => status === 429)).toBe(true);
    // Another /64 is another client.
    expect((await get("2001:db8:1:3::1")).status).toBe(200);
  });

  test("ipv6Subnet: a wider group, or false for each address apart", async () => {
    const wide = await limited({ limit: 1, ipv6Subnet: 48 });
    expect((await wide("2001:db8:1:2::1")).status).toBe(200);
    expect((await wide("2001:db8:1:ffff::1")).status).toBe(429);
    expect((await wide("2001:db8:2::1")).status).toBe(200);
    const apart = await limited({ limit: 1, ipv6Subnet: false });
    for (const address of inOneSlash64) expect((await apart(address)).status).toBe(200);
    const bad = new Webfw(import.meta.path);
    bad.get("/", () => "ok", { rateLimit: { limit: 1, windowMs: 1_000, ipv6Subnet: 129 } });
    await expect(bad.start({ port: 0 })).rejects.toThrow(/ipv6Subnet must be a prefix length from 1 to 128/);
  });

  test("198.51.100.7 and ::ffff:198.51.100.7 are one client", async () => {
    const get = await limited({ limit: 1 });
    const first = await get("198.51.100.7");
    expect(first.status).toBe(200);
    expect(await first.text()).toBe("198.51.100.7");
    const mapped = await get("::ffff:198.51.100.7");
    expect(mapped.status).toBe(429);
    expect((await get("::FFFF:C633:6407")).status).toBe(429);
  });

  test("the access log shows the full address, the handler the same", async () => {
    const lines: string[] = [];
    logger.setLevel("INFO");
    logger.setSink((line) => lines.push(line));
    const get = await limited({ limit: 100 }, true);
    const response = await get("2001:DB8:1:2:0:0:0:42");
    expect(await response.text()).toBe("2001:db8:1:2::42");
    const access = lines.find((line) => line.includes("GET / 200"));
    expect(access).toContain("client=2001:db8:1:2::42");
  });

  test("a dual-stack server sees an IPv4 client as IPv4 (not ::ffff:127.0.0.1), with no trustProxy", async () => {
    const app = new Webfw(import.meta.path);
    app.rateLimit({ limit: 1, windowMs: 60_000, key: (request) => `k:${request.ipAddr}` });
    app.get("/", (request) => request.ipAddr);
    const server = await app.start({ host: "::", port: 0, accessLog: false });
    servers.push(server);
    const port = new URL(server.url).port;
    const response = await fetch(`http://127.0.0.1:${port}/`);
    expect(await response.text()).toBe("127.0.0.1");
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(429);
  });
});
