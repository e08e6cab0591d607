/**
 * The access log as a mount (src/plan/layer-mount.ts, docs/logging.md): one INFO line per request,
 * outside request ids (the id it writes is the one echoed) and inside the span (its trace ids).
 * Only when the server logs access (`accessLog`); not for const routes Bun serves by itself.
 */
import { layerMount } from "../plan/layer-mount.ts";
import type { Mount } from "../plan/mount.ts";

export function accessLogMount(): Mount {
  return layerMount("access-log", {
    setting: (facts) => facts.accessLog,
    async load(_on, facts) {
      const { withAccessLog } = await import("./access-log.ts");
      // The trace ids of the line, when a mount gives log fields (tracing on).
      const traceIds = (context: Parameters<typeof facts.logFields>[0]) => {
        const fields = facts.logFields(context);
        return { traceId: fields?.trace_id, spanId: fields?.span_id };
      };
      return (dispatcher, route) => withAccessLog(dispatcher, route, traceIds);
    },
  });
}
