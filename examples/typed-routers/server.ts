/**
 * Sub-routers typed from the app (docs/routing.md, "Sub-routers typed from the app"):
 * `app.router("/api")` makes a router under the app with its types and prefix, `api.router("v2")`
 * nests one, and `admin.ts` defines one in its own file through `SubRouter.typed<ShopTypes>()`.
 * Every handle carries its whole path, so `client<typeof import("./server.ts")>` calls
 * `GET /api/v2/stock/:sku`. `bun examples/typed-routers/server.ts`.
 */
import { BearerGetter, t, Webfw } from "../../src/index.ts";
import { admin } from "./admin.ts";
import { type AuditLog, ShopAuth, type ShopTypes } from "./app-types.ts";

// The client's type: every route handle this module exports (and admin.ts's).
export * from "./admin.ts";

const audit: AuditLog = {
  lines: [],
  write(line) {
    this.lines.push(line);
  },
};
const stockBySku = new Map([
  ["tea", 12],
  ["cups", 0],
]);

export const app = new Webfw<ShopTypes>(import.meta.path);
app.injectGlobal({ shop: "Corner Shop", inventory: { stock: (sku) => stockBySku.get(sku) ?? 0 } });
app.configureAuthentication(new ShopAuth(new BearerGetter()));

const api = app.router("/api", { dependencies: { audit } });

export const shopName = api.get("/shop", ({ globalDependencies }) => ({ name: globalDependencies.shop }));

const v2 = api.router("v2", { rateLimit: { limit: 3, windowMs: 60_000, name: "v2" } });

export const stock = v2.get(
  "/stock/:sku",
  ({ args, globalDependencies, identity, routerDependencies }) => {
    routerDependencies.audit.write(`${identity?.claims.sub ?? "anonymous"} looked up ${args.sku}`);
    return { sku: args.sku, count: globalDependencies.inventory.stock(args.sku) };
  },
  { args: { sku: t.str().oneOf(["tea", "cups", "jam"]) } },
);

// A router of its own file goes on the app itself: its handles know only their own prefix
// (`/admin/...`); under another router the client's paths would miss the outer one.
admin.inject({ audit });
app.includeRouter(admin);

if (import.meta.main) await app.start();
