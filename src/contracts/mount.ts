/**
 * Response contracts as a mount (src/plan/mount.ts, docs/responses.md): the handler of a route
 * that declares `responses` is wrapped to check (and strip) its value. src/contracts/enforce.ts
 * loads only for an app with a route that declares `responses` or `responseCheck`.
 */
import type { AppState } from "../app-state.ts";
import type { Mount } from "../plan/mount.ts";

export function contractsMount(app: AppState): Mount {
  return {
    name: "contracts",
    async prepare(tree) {
      const declares = tree.routes.some(
        ({ route }) => route.options.responses !== undefined || route.options.responseCheck !== undefined,
      );
      if (!declares) return null;
      const { responseContract } = await import("./enforce.ts");
      return {
        handler(handler, { route }) {
          const contract = responseContract(route, app.config.responseCheck);
          return contract === null ? handler : contract(handler);
        },
      };
    },
  };
}
