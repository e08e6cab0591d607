/**
 * Streamed uploads as a mount (src/plan/mount.ts, docs/uploads.md): the handler of every
 * `body: "stream"` route passes the app's upload gate (one per build, per process). The gate and
 * its admission load only for an app with such a route.
 */
import type { AppState } from "../app-state.ts";
import type { Mount } from "../plan/mount.ts";

/** What the metrics read (src/observability/bounds-metrics.ts). */
export interface UploadStats {
  stats(): { inFlight: number; bytes: number; refused: number };
}

export function uploadsMount(app: AppState): Mount<UploadStats> {
  return {
    name: "uploads",
    async prepare(tree) {
      if (!tree.routes.some(({ route }) => route.options.body === "stream")) return null;
      const [{ admitUploads }, { UploadGate }] = await Promise.all([
        import("./admit.ts"),
        import("./gate.ts"),
      ]);
      const gate = new UploadGate(app.config.uploads);
      return {
        route(plan, { route }) {
          if (route.options.body === "stream") plan.handler = admitUploads(plan.handler, gate);
          return null;
        },
        install: () => ({ exports: { stats: gate.stats } }),
      };
    },
  };
}
