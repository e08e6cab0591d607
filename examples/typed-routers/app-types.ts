/**
 * The app's types, declared once (docs/typescript.md): what every handler sees as
 * `globalDependencies`, `routerDependencies` and `identity.claims`. Routers in their own
 * files take them from `ApiRouter`, so no file repeats them and no router repeats its prefix.
 * Types and one line of code only: the router files import this, never the app's module.
 */
import { AuthenticationHandler, Identity, type Request, SubRouter } from "../../src/index.ts";

export interface Inventory {
  stock(sku: string): number;
}
export interface AuditLog {
  lines: string[];
  write(line: string): void;
}
export interface Claims {
  sub: string;
  role: "staff" | "admin";
}
export interface ShopTypes {
  global: { inventory: Inventory; shop: string };
  router: { audit: AuditLog };
  claims: Claims;
}

/** `new ApiRouter(import.meta.path, { prefix })`: a `SubRouter` typed with `ShopTypes`. */
export const ApiRouter = SubRouter.typed<ShopTypes>();

/** `Authorization: Bearer <name>:<role>`; a toy check standing in for a real token verifier. */
export class ShopAuth extends AuthenticationHandler<Claims> {
  override authenticate(request: Request): Identity<Claims> | null {
    const token = this.tokenGetter.getToken(request);
    const [sub, role] = token?.split(":") ?? [];
    if (!sub || (role !== "staff" && role !== "admin")) return null;
    return new Identity<Claims>({ claims: { sub, role } });
  }
}
