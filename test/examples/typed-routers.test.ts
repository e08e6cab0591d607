/**
 * examples/typed-routers (issue #31): routers made by `app.router(prefix)`, nested with
 * `.router()`, and one from its own file through `SubRouter.typed<ShopTypes>()`. Over HTTP with
 * the typed client: the handlers get the app's global and router dependencies and the caller's
 * claims, every path carries its prefixes, and the options of `app.router` (dependencies, rate
 * limit) apply.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as example from "../../examples/typed-routers/server.ts";
import { client } from "../../src/client/index.ts";
import type { ServerHandle } from "../../src/index.ts";
import { startQuiet } from "../helpers/quiet-server.ts";

let server: ServerHandle;
beforeAll(async () => {
  server = await startQuiet(example.app);
});
afterAll(() => server.stop(true));

describe("examples/typed-routers", () => {
  const api = () => client<typeof example>(server.url);

  test("app.router: the app's global dependencies, under the router's prefix", async () => {
    const shop = await api().get("/api/shop");
    expect(shop.ok && shop.data).toEqual({ name: "Corner Shop" });
    const bare = await fetch(`${server.url}/shop`);
    expect(bare.status).toBe(404);
  });

  test("a nested router: both prefixes, typed args, router dependencies, claims, its rate limit", async () => {
    const staff = client<typeof example>(server.url, { headers: { authorization: "Bearer ada:staff" } });
    const tea = await staff.get("/api/v2/stock/:sku", { params: { sku: "tea" } });
    expect(tea.ok && tea.data).toEqual({ sku: "tea", count: 12 });
    const jam = await api().get("/api/v2/stock/:sku", { params: { sku: "jam" } });
    expect(jam.ok && jam.data).toEqual({ sku: "jam", count: 0 });
    const invalid = await fetch(`${server.url}/api/v2/stock/milk`);
    expect(invalid.status).toBe(400);
    // Three per minute on this router (`rateLimit` option): the fourth is refused.
    const fourth = await api().get("/api/v2/stock/:sku", { params: { sku: "cups" } });
    expect(fourth.status).toBe(429);
    expect((await fetch(`${server.url}/api/shop`)).status).toBe(200);
  });

  test("a router of its own file: claims typed, the audit written by the other router", async () => {
    const anonymous = await api().get("/admin/audit");
    expect(anonymous.status).toBe(401);
    const staff = await client<typeof example>(server.url, {
      headers: { authorization: "Bearer ada:staff" },
    }).get("/admin/audit");
    expect([staff.status, !staff.ok && staff.message]).toEqual([403, "admins only"]);
    const admin = await client<typeof example>(server.url, {
      headers: { authorization: "Bearer grace:admin" },
    }).get("/admin/audit");
    expect(admin.ok && admin.data.lines).toEqual(["ada looked up tea", "anonymous looked up jam"]);
  });
});
