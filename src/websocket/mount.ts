import type { WebSocketHandler } from "bun";
import type { Mount } from "../plan/mount.ts";
import type { TopicHub } from "../topics/hub.ts";
import type { ResolvedWebSocketOptions } from "./options.ts";
import type { WebSocketRuntime } from "./runtime.ts";

/**
 * WebSockets as a mount (src/plan/mount.ts): see `mountWebSockets` (src/websocket/install.ts). The run-time side (Bun's
 * `websocket` handler, the open connections) is made per build and handed to the server.
 */
export function webSocketMount(
  options: ResolvedWebSocketOptions,
  hub: () => TopicHub,
): Mount<WebSocketRuntime> {
  return {
    name: "websocket",
    async prepare(tree) {
      if (tree.websockets.length === 0) return null;
      // The WebSocket runtime loads only for an app with WebSocket routes (idle memory, docs/performance.md).
      const { mountWebSockets } = await import("./install.ts");
      return {
        install(context) {
          const runtime = mountWebSockets({ ...context, options, hub: hub() });
          if (runtime === null) return null;
          return {
            websocket: runtime.handler as WebSocketHandler<unknown>,
            // The server that delivers broadcasts coming from other processes.
            listening: (server) => runtime.attach(server),
            // Open WebSockets would hold the server open: closed (1001 going away) before the drain.
            stopping: () => runtime.closeAll(),
            exports: runtime,
          };
        },
      };
    },
  };
}
