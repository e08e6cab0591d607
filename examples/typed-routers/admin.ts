/** A router in its own file: the app's types from `ApiRouter`, the prefix written once. */
import { HttpError } from "../../src/index.ts";
import { ApiRouter } from "./app-types.ts";

export const admin = new ApiRouter(import.meta.path, { prefix: "/admin" });

export const auditTrail = admin.get(
  "/audit",
  ({ identity, routerDependencies }) => {
    // `identity.claims` is `Claims` and `routerDependencies.audit` an `AuditLog`: no casts.
    if (identity?.claims.role !== "admin") throw new HttpError(403, "admins only");
    return { lines: routerDependencies.audit.lines };
  },
  { authRequired: true, responses: { 403: "not an admin" } },
);
