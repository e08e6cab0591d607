/**
 * What `app.mcp.configure({ auth })` and `app.mcp.exposeRoutes()` record; read
 * when the app is built (src/mcp/mount-extras.ts).
 */
import { type McpAuthOptions, type ResolvedMcpAuth, resolveMcpAuth } from "../auth/options.ts";
import type { RouteFilter } from "./options.ts";

export class McpExtras {
  /** The protected-resource settings; null until `configure({ auth })`. */
  auth: ResolvedMcpAuth | null = null;
  /** `exposeRoutes` filters; null when it was never called (only `mcp:` route options count). */
  filters: RouteFilter[] | null = null;

  configureAuth(options: McpAuthOptions): void {
    this.auth = resolveMcpAuth(options);
  }

  expose(filter?: RouteFilter): void {
    if (filter !== undefined && typeof filter !== "function") {
      throw new TypeError(
        "exposeRoutes(filter): the filter must be a function of { method, path, summary, tags }",
      );
    }
    this.filters ??= [];
    this.filters.push(filter ?? (() => true));
  }
}
