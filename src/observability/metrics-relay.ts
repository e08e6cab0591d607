/**
 * One scrape for the whole server under `--processes N`. The kernel hands the
 * scrape to any one process (they share the port with `reusePort`), so that
 * process asks the supervisor, over the IPC channel Bun opens to each child,
 * for every process's figures; the supervisor asks each live child for a
 * snapshot of its registry and sends the list back; the asking process adds
 * them up (src/observability/metrics.ts) and answers.
 *
 *   child A ──collect──▶ supervisor ──report──▶ every child (A too)
 *   child A ◀──result─── supervisor ◀─snapshot── every child
 *
 * Snapshots are prom-client's JSON form of a registry: plain data that the
 * IPC channel carries as is. A child that does not answer within the
 * deadline (it is starting, or stuck) is left out of that scrape rather than
 * failing it; the answer says how many processes it covers in
 * `webfw_metrics_processes`.
 */

/** Child → supervisor: "gather everyone's snapshot for my scrape `id`". */
export interface CollectRequest {
  webfwMetrics: "collect";
  id: number;
}
/** Supervisor → child: "send your snapshot for gathering `id`". */
export interface ReportRequest {
  webfwMetrics: "report";
  id: number;
}
/** Child → supervisor: a snapshot for gathering `id`. */
export interface SnapshotReply {
  webfwMetrics: "snapshot";
  id: number;
  data: unknown;
}
/** Supervisor → child: the snapshots for its scrape `id`. */
export interface CollectResult {
  webfwMetrics: "result";
  id: number;
  data: unknown[];
}

export type RelayMessage = CollectRequest | ReportRequest | SnapshotReply | CollectResult;

export function isRelayMessage(message: unknown): message is RelayMessage {
  return (
    typeof message === "object" &&
    message !== null &&
    typeof (message as { webfwMetrics?: unknown }).webfwMetrics === "string" &&
    typeof (message as { id?: unknown }).id === "number"
  );
}

/** How long the supervisor waits for the children's snapshots (Prometheus' default scrape timeout is 10 s). */
export const GATHER_TIMEOUT_MS = 2_000;

/** A child as the supervisor sees it: something to send a message to. */
export interface RelayPeer {
  send(message: RelayMessage): void;
}

/**
 * The supervisor's side: call `onMessage` with every IPC message of a child.
 * `peers()` lists the live children at the time of a scrape.
 */
export function createMetricsRelay(peers: () => RelayPeer[], timeoutMs = GATHER_TIMEOUT_MS) {
  let nextId = 1;
  const gatherings = new Map<number, { expected: number; data: unknown[]; done: () => void }>();

  const gather = (requester: RelayPeer, requestId: number): void => {
    const targets = peers();
    const id = nextId++;
    const data: unknown[] = [];
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      gatherings.delete(id);
      try {
        requester.send({ webfwMetrics: "result", id: requestId, data });
      } catch {
        // The asking child died meanwhile: nobody to answer.
      }
    };
    const timer = setTimeout(done, timeoutMs);
    gatherings.set(id, { expected: targets.length, data, done });
    for (const peer of targets) {
      try {
        peer.send({ webfwMetrics: "report", id });
      } catch {
        // A child that is exiting cannot answer: the gathering waits for the others only.
        const gathering = gatherings.get(id);
        if (gathering) gathering.expected--;
      }
    }
    if (data.length >= (gatherings.get(id)?.expected ?? 0)) done();
  };

  return {
    /** Handles one IPC message from `from`; returns false when it is not a metrics message. */
    onMessage(message: unknown, from: RelayPeer): boolean {
      if (!isRelayMessage(message)) return false;
      if (message.webfwMetrics === "collect") gather(from, message.id);
      else if (message.webfwMetrics === "snapshot") {
        const gathering = gatherings.get(message.id);
        if (gathering) {
          gathering.data.push(message.data);
          if (gathering.data.length >= gathering.expected) gathering.done();
        }
      }
      return true;
    },
  };
}

/** What a child process uses to get the whole server's snapshots. */
export interface MetricsClusterLink {
  /** Every process's snapshot (this one's included), or null when the supervisor cannot be reached. */
  collect(): Promise<unknown[] | null>;
  close(): void;
}

/**
 * The child's side: answers the supervisor's `report` requests with `snapshot()`
 * and asks for gatherings. Null when this process has no supervisor channel.
 */
export function joinMetricsRelay(snapshot: () => Promise<unknown>): MetricsClusterLink | null {
  const send = process.send?.bind(process);
  if (send === undefined) return null;
  let nextId = 1;
  const pending = new Map<number, (data: unknown[] | null) => void>();
  const onMessage = (message: unknown) => {
    if (!isRelayMessage(message)) return;
    if (message.webfwMetrics === "report") {
      void snapshot().then(
        (data) => send({ webfwMetrics: "snapshot", id: message.id, data } satisfies SnapshotReply),
        () => send({ webfwMetrics: "snapshot", id: message.id, data: [] } satisfies SnapshotReply),
      );
    } else if (message.webfwMetrics === "result") {
      pending.get(message.id)?.(message.data);
      pending.delete(message.id);
    }
  };
  process.on("message", onMessage);
  // The channel must not keep a stopping server alive.
  (process as { channel?: { unref?: () => void } }).channel?.unref?.();
  return {
    collect() {
      const id = nextId++;
      return new Promise<unknown[] | null>((resolve) => {
        // The supervisor answers within its own deadline; this one covers a supervisor that is gone.
        const timer = setTimeout(() => {
          pending.delete(id);
          resolve(null);
        }, GATHER_TIMEOUT_MS * 2);
        pending.set(id, (data) => {
          clearTimeout(timer);
          resolve(data);
        });
        try {
          send({ webfwMetrics: "collect", id } satisfies CollectRequest);
        } catch {
          clearTimeout(timer);
          pending.delete(id);
          resolve(null);
        }
      });
    },
    close() {
      process.off("message", onMessage);
      for (const resolve of pending.values()) resolve(null);
      pending.clear();
    },
  };
}
