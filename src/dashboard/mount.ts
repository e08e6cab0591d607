/**
 * The development dashboard as a mount (src/plan/mount.ts; docs/dashboard.md). This file and
 * src/dashboard/options.ts are all an app loads while the dashboard is off: `prepare` returns
 * `null` without importing anything, and no route is wrapped.
 */
import type { Mount } from "../plan/mount.ts";
import type { TopicHub } from "../topics/hub.ts";
import type { WebSocketRuntime } from "../websocket/runtime.ts";
import { type DashboardOption, resolveDashboard } from "./options.ts";

export interface DashboardSource {
  option: () => DashboardOption | undefined;
  /** The WebSocket mount, whose runtime lists the open connections. */
  webSockets: Mount<WebSocketRuntime>;
  hub: () => TopicHub;
}

export function dashboardMount(source: DashboardSource): Mount {
  return {
    name: "dashboard",
    async prepare(tree, facts) {
      const settings = resolveDashboard(source.option(), facts.dev);
      if (settings === null) return null;
      const { prepareDashboard } = await import("./assemble.ts");
      return prepareDashboard(tree, {
        settings,
        webSockets: source.webSockets,
        hub: source.hub,
      });
    },
  };
}
