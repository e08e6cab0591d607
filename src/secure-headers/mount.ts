/**
 * Secure response headers as a mount (src/plan/mount.ts, docs/security.md): a layer outside
 * compression, so the headers land on the final answer. src/secure-headers/layer.ts loads only
 * when the app's option or a route's asks for them.
 */
import type { AppState } from "../app-state.ts";
import type { Mount } from "../plan/mount.ts";
import { planSecureHeaders } from "./plan.ts";

export function secureHeadersMount(app: AppState): Mount {
  return {
    name: "secure-headers",
    async prepare(tree) {
      const layer = await planSecureHeaders(app.config.secureHeaders, tree.routes);
      if (layer === null) return null;
      return { layer, seesEveryRequest: () => true };
    },
  };
}
