/**
 * The shape an app-wide layer's mount shares (docs/architecture.md, "Layers and mounts"): off
 * (`null` from `prepare`, nothing imported) unless its setting is on, else its module imported and
 * one layer around every dispatcher. Each feature keeps its mount in its own folder and names its
 * setting and its module here.
 */
import type { RouteInfo } from "../observability/route-info.ts";
import type { Dispatcher } from "../serve/dispatch.ts";
import type { BuildFacts, Mount } from "./mount.ts";

export interface LayerMountSpec<S> {
  /** The feature's setting for this build; `null`, `undefined` or `false`: off. */
  setting(facts: BuildFacts): S | null | undefined | false;
  /** Imports the feature's module (only when on) and makes the layer. */
  load(setting: S, facts: BuildFacts): Promise<(dispatcher: Dispatcher, route?: RouteInfo) => Dispatcher>;
  /** The layer reads or writes every request, so a const route must stay in JavaScript (`MountBuild.seesEveryRequest`). */
  seesEveryRequest?: boolean;
}

export function layerMount<S>(name: string, spec: LayerMountSpec<S>): Mount {
  return {
    name,
    async prepare(_tree, facts) {
      const setting = spec.setting(facts);
      if (setting === null || setting === undefined || setting === false) return null;
      const layer = await spec.load(setting, facts);
      return spec.seesEveryRequest ? { layer, seesEveryRequest: () => true } : { layer };
    },
  };
}
