/**
 * In a handler Worker of a server whose dashboard is on: records the spans of offloaded handlers
 * and sends them to the main thread's dashboard over a BroadcastChannel (Workers of one process
 * share it), so a request's waterfall shows the Worker's part too (docs/dashboard.md).
 */
import type { SpanRecord } from "./records.ts";
import { addSpanSink, loadSpanModules, spanRecording } from "./spans.ts";

export const SPAN_CHANNEL = "webfw.dashboard.spans";

export async function recordWorkerSpans(): Promise<void> {
  const channel = new BroadcastChannel(SPAN_CHANNEL);
  // A Worker must not be held open by the channel: the pool terminates it when it closes.
  (channel as unknown as { unref?: () => void }).unref?.();
  if (!spanRecording(await loadSpanModules()).on) return;
  addSpanSink({
    started: () => {},
    ended: (span: SpanRecord) => channel.postMessage(span),
  });
}
