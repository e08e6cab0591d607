import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import app from "../../examples/router-pairs.ts";
import type { ServerHandle } from "../../src/index.ts";

describe("examples/router-pairs.ts", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await app.start({ port: 0, handleSignals: false, accessLog: false });
  });
  afterAll(() => server.stop());

  test("the API keeps a session and answers the allowed origin", async () => {
    const origin = "https://app.example";
    const first = await fetch(`${server.url}/api/basket?item=tea`, { method: "POST", headers: { origin } });
    expect(first.status).toBe(200);
    expect(first.headers.get("access-control-allow-origin")).toBe(origin);
    expect(first.headers.get("access-control-allow-credentials")).toBe("true");
    const cookie = (first.headers.get("set-cookie") ?? "").split(";")[0] as string;
    expect(cookie).toStartWith("session=");
    const second = await fetch(`${server.url}/api/basket?item=milk`, {
      method: "POST",
      headers: { origin, cookie },
    });
    // The session changed, so the cookie is sent again with the new contents.
    const updated = (second.headers.get("set-cookie") ?? "").split(";")[0] as string;
    expect(updated).not.toBe(cookie);
    const basket = await fetch(`${server.url}/api/basket`, { headers: { cookie: updated } });
    expect(await basket.json()).toEqual({ basket: ["tea", "milk"] });
  });

  test("a preflight from the allowed origin passes; another origin gets no CORS header", async () => {
    const preflight = await fetch(`${server.url}/api/basket`, {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.example");
    const refused = await fetch(`${server.url}/api/basket`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("the public page has neither; bad input is a 400", async () => {
    const page = await fetch(`${server.url}/`, { headers: { origin: "https://app.example" } });
    expect(page.headers.get("access-control-allow-origin")).toBeNull();
    expect(page.headers.get("set-cookie")).toBeNull();
    expect((await fetch(`${server.url}/api/basket?item=`, { method: "POST" })).status).toBe(400);
    expect((await fetch(`${server.url}/api/basket`, { method: "POST" })).status).toBe(400);
  });

  test("a tampered session cookie gives an empty basket, not an error", async () => {
    const basket = await fetch(`${server.url}/api/basket`, { headers: { cookie: "session=forged.value" } });
    expect(basket.status).toBe(200);
    expect(await basket.json()).toEqual({ basket: [] });
  });
});
