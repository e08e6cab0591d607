/**
 * The supervisor's side of the metrics relay (src/observability/metrics-relay.ts) with fake
 * children: a gathering waits for every live child, answers without those that do not answer
 * in time or cannot be reached, and ignores messages that are not its own.
 */
import { describe, expect, test } from "bun:test";
import {
  createMetricsRelay,
  type RelayMessage,
  type RelayPeer,
} from "../../src/observability/metrics-relay.ts";

interface FakeChild extends RelayPeer {
  inbox: RelayMessage[];
}

function child(
  answer: ((message: RelayMessage) => unknown) | null,
  relay: () => ReturnType<typeof createMetricsRelay>,
): FakeChild {
  const self: FakeChild = {
    inbox: [],
    send(message) {
      self.inbox.push(message);
      if (message.webfwMetrics === "report" && answer) {
        const data = answer(message);
        queueMicrotask(() => relay().onMessage({ webfwMetrics: "snapshot", id: message.id, data }, self));
      }
    },
  };
  return self;
}

const resultOf = async (peer: FakeChild): Promise<unknown[]> => {
  for (let i = 0; i < 100; i++) {
    const result = peer.inbox.find((m) => m.webfwMetrics === "result");
    if (result && result.webfwMetrics === "result") return result.data;
    await Bun.sleep(10);
  }
  throw new Error("no result");
};

describe("metrics relay (supervisor side)", () => {
  test("gathers one snapshot per live child and answers the asking child with its own id", async () => {
    let relay!: ReturnType<typeof createMetricsRelay>;
    const a = child(
      () => ["a"],
      () => relay,
    );
    const b = child(
      () => ["b"],
      () => relay,
    );
    relay = createMetricsRelay(() => [a, b]);
    expect(relay.onMessage({ webfwMetrics: "collect", id: 41 }, a)).toBe(true);
    const data = await resultOf(a);
    expect(data.sort()).toEqual([["a"], ["b"]]);
    expect(a.inbox.find((m) => m.webfwMetrics === "result")?.id).toBe(41);
    expect(b.inbox.some((m) => m.webfwMetrics === "result")).toBe(false);
  });

  test("a child that never answers is left out after the deadline", async () => {
    let relay!: ReturnType<typeof createMetricsRelay>;
    const a = child(
      () => ["a"],
      () => relay,
    );
    const silent = child(null, () => relay);
    relay = createMetricsRelay(() => [a, silent], 100);
    const started = performance.now();
    relay.onMessage({ webfwMetrics: "collect", id: 1 }, a);
    expect(await resultOf(a)).toEqual([["a"]]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
  });

  test("a child that cannot be sent to is not waited for", async () => {
    let relay!: ReturnType<typeof createMetricsRelay>;
    const a = child(
      () => ["a"],
      () => relay,
    );
    const gone: FakeChild = {
      inbox: [],
      send() {
        throw new Error("channel closed");
      },
    };
    relay = createMetricsRelay(() => [a, gone], 5_000);
    const started = performance.now();
    relay.onMessage({ webfwMetrics: "collect", id: 2 }, a);
    expect(await resultOf(a)).toEqual([["a"]]);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  test("other IPC messages are not the relay's; late snapshots are ignored", () => {
    const relay = createMetricsRelay(() => []);
    const peer: FakeChild = { inbox: [], send: (m) => void peer.inbox.push(m) };
    expect(relay.onMessage({ hello: 1 }, peer)).toBe(false);
    expect(relay.onMessage(null, peer)).toBe(false);
    expect(relay.onMessage({ webfwMetrics: "snapshot", id: 999, data: [] }, peer)).toBe(true);
    // No children: the asking one gets an empty list at once.
    relay.onMessage({ webfwMetrics: "collect", id: 3 }, peer);
    expect(peer.inbox).toEqual([{ webfwMetrics: "result", id: 3, data: [] }]);
  });
});
