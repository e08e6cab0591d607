/**
 * Issue 31: "the rate-limit store warning, documented as once per 10 s, is printed 5 times in
 * 12 ms". Every route under `app.rateLimit` has its own layer, and each layer had its own throttle;
 * the throttle is now one per store, whatever the routes, methods, policies and builds using it.
 */
import { afterEach, expect, test } from "bun:test";
import type { RateLimitStore } from "../../src/entries/rate-limit.ts";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import { logger, stderrSink } from "../../src/log/logger.ts";

const servers: ServerHandle[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop(true);
  logger.setSink(stderrSink);
});

function brokenStore(): RateLimitStore {
  return {
    hit(): never {
      throw new Error("store down");
    },
  };
}

function capture(): string[] {
  const lines: string[] = [];
  logger.setSink((line) => {
    if (line.includes("rate limit store failed")) lines.push(line);
  });
  return lines;
}

function appOn(store: RateLimitStore): Webfw {
  const app = new Webfw(import.meta.path);
  app.rateLimit({ limit: 10, windowMs: 60_000, store });
  for (const path of ["/a", "/b", "/c", "/d"]) app.get(path, () => "ok");
  app.post("/a", () => "posted");
  // A policy of its own on the same store.
  app.get("/own", () => "ok", { rateLimit: { limit: 1, name: "own" } });
  return app;
}

test("one warning per store per 10 s across routes, methods, policies and rebuilt apps", async () => {
  const lines = capture();
  const store = brokenStore();
  const first = await appOn(store).start({ port: 0, host: "127.0.0.1", accessLog: false });
  servers.push(first);
  const requests: [string, string][] = [
    ["GET", "/a"],
    ["GET", "/b"],
    ["GET", "/c"],
    ["GET", "/d"],
    ["POST", "/a"],
    ["GET", "/own"],
  ];
  for (const [method, path] of requests) {
    const response = await fetch(`${first.url}${path}`, { method });
    // Fail open: served without a limit.
    expect(response.status).toBe(200);
    expect(response.headers.get("ratelimit")).toBeNull();
  }
  expect(lines.length).toBe(1);
  expect(lines[0]).toContain("level=WARNING");
  expect(lines[0]).toContain("policy=app");
  expect(lines[0]).toContain('error="store down"');

  // The same store in another build of the app (a restart, another test): still the same throttle.
  const second = await appOn(store).start({ port: 0, host: "127.0.0.1", accessLog: false });
  servers.push(second);
  for (const [method, path] of requests) await fetch(`${second.url}${path}`, { method });
  expect(lines.length).toBe(1);

  // Another store has a throttle of its own.
  const other = await appOn(brokenStore()).start({ port: 0, host: "127.0.0.1", accessLog: false });
  servers.push(other);
  for (const [method, path] of requests) await fetch(`${other.url}${path}`, { method });
  expect(lines.length).toBe(2);
});
