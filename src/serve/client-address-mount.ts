/**
 * The client's address behind trusted proxies as a mount (src/plan/layer-mount.ts,
 * docs/client-address.md): a layer outside spans and the access log, which read the address too.
 * Without `trustProxy` nothing is added and src/serve/client-address-layer.ts is not loaded.
 */
import type { AppState } from "../app-state.ts";
import { layerMount } from "../plan/layer-mount.ts";
import type { Mount } from "../plan/mount.ts";

export function clientAddressMount(app: AppState): Mount {
  return layerMount("client-address", {
    setting: () => app.config.client,
    async load(client) {
      const { withClientAddress } = await import("./client-address-layer.ts");
      return (dispatcher) => withClientAddress(dispatcher, client);
    },
  });
}
