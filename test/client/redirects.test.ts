/**
 * Issue 31: the typed client never sends a header (an API key, authorization, a cookie, any
 * default header) or a body to an origin the caller did not name. Two real servers on port 0
 * (different ports, so different origins); the second records what reaches it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ClientInputError, client, MAX_REDIRECTS } from "../../src/client/index.ts";
import { testClient } from "../../src/entries/testing.ts";
import type { ServerHandle } from "../../src/index.ts";
import * as routes from "./fixtures/redirecting.ts";

type Api = typeof routes;
const SECRETS = { "x-api-key": "k-123", authorization: "Bearer t-456", cookie: "sid=789" };
const start = () =>
  routes.app.start({ port: 0, host: "127.0.0.1", handleSignals: false, accessLog: false, argv: [] });

let origin: ServerHandle;
let other: ServerHandle;
/** Every request that reached the other origin. */
const reachedOther: string[] = [];

beforeAll(async () => {
  origin = await start();
  other = await start();
});
afterAll(async () => {
  await origin.stop();
  await other.stop();
});

/** A client of `origin` whose default headers carry the secrets; requests are noted by port. */
function api(redirect?: "same-origin" | "manual") {
  return client<Api>(origin.url, {
    headers: SECRETS,
    ...(redirect ? { redirect } : {}),
    fetch: (request) => {
      if (new URL(request.url).port === String(other.port))
        reachedOther.push(`${request.method} ${request.url}`);
      return fetch(request);
    },
  });
}

describe("a redirect to another origin is not followed", () => {
  test("302 on a GET: the call resolves with the 302 and its Location; nothing reached the other server", async () => {
    reachedOther.length = 0;
    const result = await api().get("/away", { args: { target: other.url } });
    expect(result.ok).toBe(false);
    expect(result.status as number).toBe(302);
    expect(result.headers.get("location")).toBe(`${other.url}/record`);
    expect(reachedOther).toEqual([]);
  });

  for (const path of ["/away", "/away-308"] as const) {
    test(`${path}: a POST's body and headers are not re-sent there`, async () => {
      reachedOther.length = 0;
      const input = { args: { target: other.url }, body: { secret: "s3cret" } };
      const result = await (path === "/away" ? api().post("/away", input) : api().post("/away-308", input));
      expect(result.status as number).toBe(path === "/away" ? 307 : 308);
      expect(result.headers.get("location")).toBe(`${other.url}/record`);
      expect(reachedOther).toEqual([]);
    });
  }

  test("through the platform fetch, with no fetch option: the other server records nothing", async () => {
    // Same as above without the spy: the other server's /record would answer the secrets if reached.
    const plain = client<Api>(origin.url, { headers: SECRETS });
    const result = await plain.post("/away", { args: { target: other.url }, body: { secret: "s3cret" } });
    expect(result.status as number).toBe(307);
    expect(result.ok ? null : result.body).toBe("");
  });
});

describe("a redirect on the same origin is followed", () => {
  test("307 keeps the method, the body and the headers", async () => {
    const result = await api().post("/same-307", { body: { secret: "s3cret" } });
    expect(result.status).toBe(200);
    expect(result.ok && result.data).toEqual({
      method: "POST",
      path: "/record",
      apiKey: "k-123",
      authorization: "Bearer t-456",
      cookie: "sid=789",
      contentType: "application/json",
      body: '{"secret":"s3cret"}',
    });
  });

  for (const path of ["/same-302", "/same-303"] as const) {
    test(`${path} after a POST: a GET without the body`, async () => {
      const input = { body: { secret: "s3cret" } };
      const result = await (path === "/same-302"
        ? api().post("/same-302", input)
        : api().post("/same-303", input));
      expect(result.status).toBe(200);
      expect(result.ok && result.data).toMatchObject({
        method: "GET",
        path: "/record",
        apiKey: "k-123",
        contentType: null,
        body: "",
      });
    });
  }

  test("an absolute Location on the same origin (301)", async () => {
    const result = await api().get("/same-absolute");
    expect(result.ok && result.data).toMatchObject({ method: "GET", path: "/record", apiKey: "k-123" });
  });

  test(`a loop stops after ${MAX_REDIRECTS} redirects`, async () => {
    expect(api().get("/loop")).rejects.toThrow(`too many redirects (more than ${MAX_REDIRECTS}) from GET`);
  });

  test("testClient (in process) follows them the same way", async () => {
    const result = await testClient<Api>(routes.app, { headers: SECRETS }).post("/same-307", {
      body: { secret: "x" },
    });
    expect(result.ok && result.data).toMatchObject({
      method: "POST",
      apiKey: "k-123",
      body: '{"secret":"x"}',
    });
  });
});

describe('redirect: "manual"', () => {
  test("follows nothing, not even on the same origin", async () => {
    const result = await api("manual").post("/same-307", { body: { secret: "s3cret" } });
    expect(result.status as number).toBe(307);
    expect(result.headers.get("location")).toBe("/record");
  });

  test("an unknown mode is refused when the client is made", () => {
    expect(() => client<Api>(origin.url, { redirect: "follow" as "manual" })).toThrow(ClientInputError);
  });
});
