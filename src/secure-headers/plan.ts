/**
 * Whether the build needs the secure-headers layer: the app's option or any route's. When
 * neither, src/secure-headers/layer.ts is not even loaded (docs/performance.md: optional
 * features cost nothing when off).
 */
import type { DispatcherWrap } from "../observability/route-info.ts";
import type { RouteRecord } from "../router/route.ts";
import type * as Layer from "./layer.ts";
import type { ResolvedSecureHeaders } from "./options.ts";

export async function planSecureHeaders(
  app: ResolvedSecureHeaders | null,
  routes: readonly { route: RouteRecord }[],
): Promise<DispatcherWrap | null> {
  if (app === null && !routes.some(({ route }) => route.options.secureHeaders !== undefined)) return null;
  const layer: typeof Layer = await import("./layer.ts");
  return layer.secureHeadersLayer(app, routes);
}
