import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SignJWT } from "jose";
import type { ServerHandle, Webfw } from "../../src/index.ts";

describe("examples/http-essentials.ts", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    // What --dev would turn on, without the reloader.
    process.env.SERVER_TIMING = "1";
    const app = (await import("../../examples/http-essentials.ts")).default as Webfw;
    server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
  });
  afterAll(() => server.stop(true));

  const jwt = (issuer = "https://auth.example.com") =>
    new SignJWT({ sub: "ada" })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer(issuer)
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode("development-secret-of-at-least-32-bytes"));

  test("a GET: weak ETag, Cache-Control and Server-Timing; revalidation is a 304", async () => {
    const first = await fetch(`${server.url}/articles/1`);
    expect(await first.json()).toEqual({ id: 1, title: "Hello", version: 1 });
    const etag = first.headers.get("etag") as string;
    expect(etag).toStartWith('W/"');
    expect(first.headers.get("cache-control")).toBe("public, max-age=0, must-revalidate");
    expect(first.headers.get("server-timing")).toMatch(/^total;dur=[\d.]+, db;dur=[\d.]+, handler;dur=/);
    const again = await fetch(`${server.url}/articles/1`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
  });

  test("a PUT: JWT required, If-Match checked (412 when stale)", async () => {
    const put = async (headers: Record<string, string>) =>
      fetch(`${server.url}/articles/1`, {
        method: "PUT",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ title: "Edited" }),
      });
    expect((await put({ "if-match": '"v1"' })).status).toBe(401);
    expect((await put({ authorization: `Bearer ${await jwt("https://evil.example")}` })).status).toBe(401);
    const token = `Bearer ${await jwt()}`;
    const ok = await put({ authorization: token, "if-match": '"v1"' });
    expect(await ok.json()).toEqual({ id: 1, title: "Edited", version: 2, editor: "ada" });
    expect((await put({ authorization: token, "if-match": '"v1"' })).status).toBe(412);
  });

  test("the ops area: Basic credentials, no-store, no ETag", async () => {
    const refused = await fetch(`${server.url}/ops/stats`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe('Basic realm="operations", charset="UTF-8"');
    const ok = await fetch(`${server.url}/ops/stats`, {
      headers: { authorization: `Basic ${btoa("ops:ops-password")}` },
    });
    expect(await ok.json()).toEqual({ articles: 1, by: "ops" });
    expect(ok.headers.get("cache-control")).toBe("no-store");
    expect(ok.headers.get("etag")).toBeNull();
  });
});
