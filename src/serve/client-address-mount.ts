/**
 * The client's address behind trusted proxies as a mount (src/plan/mount.ts,
 * docs/client-address.md): a layer outside spans and the access log, which read the address too.
 * Without `trustProxy` nothing is added and src/serve/client-address-layer.ts is not loaded.
 */
import type { AppState } from "../app-state.ts";
import type { Mount } from "../plan/mount.ts";

export function clientAddressMount(app: AppState): Mount {
  return {
    name: "client-address",
    async prepare() {
      const client = app.config.client;
      if (client === null) return null;
      const { withClientAddress } = await import("./client-address-layer.ts");
      return { layer: (dispatcher) => withClientAddress(dispatcher, client) };
    },
  };
}
