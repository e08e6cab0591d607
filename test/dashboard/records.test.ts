/**
 * The dashboard's memory stays bounded (docs/dashboard.md, "Memory"): the request ring, the log
 * lines a request keeps, the spans a trace keeps, the traces kept without a request, and the
 * chart buckets; and the charts' per-second figures are right.
 */
import { expect, test } from "bun:test";
import { LiveStreams } from "../../src/dashboard/api.ts";
import { Records, type SpanRecord } from "../../src/dashboard/records.ts";
import { RouteStats } from "../../src/dashboard/route-stats.ts";

const span = (traceId: string, spanId: string): SpanRecord => ({
  traceId,
  spanId,
  parentId: null,
  name: "s",
  kind: "internal",
  start: 0,
  durationMs: 1,
  status: "unset",
  thread: "main",
  attributes: {},
});

test("the request ring keeps the newest requests; an old one leaves with its spans", () => {
  const records = new Records({ requests: 3, spansPerTrace: 2, logsPerRequest: 2 });
  for (let i = 1; i <= 5; i++) {
    const record = records.begin("GET", `/r/${i}`, "/r/:n");
    records.link(record, `t${i}`);
    records.span(span(`t${i}`, `s${i}`));
    records.end(record, 200, `id-${i}`, 1);
  }
  expect(records.recent(10).map((record) => record.id)).toEqual(["id-5", "id-4", "id-3"]);
  expect(records.get("id-1")).toBeUndefined();
  expect(records.spansOf("t1")).toEqual([]);
  expect(records.spansOf("t5")).toHaveLength(1);
});

test("a request keeps at most logsPerRequest lines and counts the rest; a trace at most spansPerTrace spans", () => {
  const records = new Records({ requests: 3, spansPerTrace: 2, logsPerRequest: 2 });
  const record = records.begin("GET", "/", "/");
  for (let i = 0; i < 5; i++) records.log(record, `line ${i}`, "INFO");
  expect(record.logs.map((entry) => entry.line)).toEqual(["line 0", "line 1"]);
  expect(record.droppedLogs).toBe(3);
  records.link(record, "t");
  for (let i = 0; i < 5; i++) records.span(span("t", `s${i}`));
  expect(records.spansOf("t")).toHaveLength(2);
  // Lines outside any request: the newest are kept.
  for (let i = 0; i < 5; i++) records.log(undefined, `orphan ${i}`, "INFO");
  expect(records.orphanLogs.map((entry) => entry.line)).toEqual(["orphan 3", "orphan 4"]);
});

test("spans of no listed request are dropped; traces of running requests are bounded", () => {
  const records = new Records({ requests: 2, spansPerTrace: 5, logsPerRequest: 5 });
  records.span(span("nobody", "s"));
  expect(records.spansOf("nobody")).toEqual([]);
  // Fifty requests still running (none answered yet): at most 2 × requests traces are kept.
  for (let i = 0; i < 50; i++) {
    records.link(records.begin("GET", "/", "/"), `running-${i}`);
    records.span(span(`running-${i}`, "s"));
  }
  expect(records.spansOf("running-0")).toEqual([]);
  expect(records.spansOf("running-49")).toHaveLength(1);
  const kept = Array.from({ length: 50 }, (_, i) => records.spansOf(`running-${i}`).length).reduce(
    (a, b) => a + b,
  );
  expect(kept).toBe(4);
});

test("the live stream hears each answered request and span, until it stops listening", () => {
  const records = new Records();
  const heard: string[] = [];
  const stop = records.listen((event) => heard.push(event.type));
  const record = records.begin("GET", "/", "/");
  records.link(record, "t");
  records.span(span("t", "s"));
  records.end(record, 200, "x", 1);
  stop();
  records.end(records.begin("GET", "/", "/"), 200, "y", 1);
  expect(heard).toEqual(["span", "request"]);
});

test("charts: one point a second, counts, errors and percentiles; old seconds are forgotten", () => {
  let now = 1_000_000_000;
  const stats = new RouteStats(() => now);
  for (let i = 1; i <= 100; i++) stats.add("GET /a", i === 100 ? 500 : 200, i);
  now += 1000;
  stats.add("GET /a", 200, 7);
  const series = stats.series(3)["GET /a"];
  expect(series?.map((point) => point.count)).toEqual([0, 100, 1]);
  const busy = series?.[1];
  expect(busy).toMatchObject({ count: 100, errors: 1, p50: 50, p95: 95, p99: 99 });
  // 300 s later the same slot is reused for a new second: the old counts are gone.
  now += 300_000;
  stats.add("GET /a", 200, 1);
  expect(stats.series(300)["GET /a"]?.reduce((sum, point) => sum + point.count, 0)).toBe(1);
});

test("a live stream whose reader stopped reading is closed, not queued for without bound", async () => {
  const records = new Records();
  const streams = new LiveStreams();
  const response = streams.open(records);
  for (let i = 0; i < 1500; i++) records.end(records.begin("GET", "/", "/"), 200, `id-${i}`, 1);
  const text = await response.text(); // ends: the stream was closed past the bound
  const events = text.split("event: request").length - 1;
  expect(events).toBeGreaterThan(900);
  expect(events).toBeLessThan(1100);
  // Closed streams stop listening: later requests cost them nothing.
  records.end(records.begin("GET", "/", "/"), 200, "late", 1);
});
