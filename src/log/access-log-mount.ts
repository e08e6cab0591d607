/**
 * The access log as a mount (src/plan/mount.ts, docs/logging.md): one INFO line per request,
 * outside request ids (the id it writes is the one echoed) and inside the span (its trace ids).
 * Only when the server logs access (`accessLog`); not for const routes Bun serves by itself.
 */
import type { Mount } from "../plan/mount.ts";

export function accessLogMount(): Mount {
  return {
    name: "access-log",
    async prepare(_tree, facts) {
      if (!facts.accessLog) return null;
      const { withAccessLog } = await import("./access-log.ts");
      // The trace ids of the line, when a mount gives log fields (tracing on).
      const traceIds = (context: Parameters<typeof facts.logFields>[0]) => {
        const fields = facts.logFields(context);
        return { traceId: fields?.trace_id, spanId: fields?.span_id };
      };
      return { layer: (dispatcher, route) => withAccessLog(dispatcher, route, traceIds) };
    },
  };
}
