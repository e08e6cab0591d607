/**
 * examples/observability.ts run as its docs say (`--otel --log-format json`), exporting to an
 * OTLP receiver in this test: the trace the page describes, its metrics and its log line.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { collect, freePort, testEnv, waitFor } from "../cli/helpers.ts";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../helpers/otlp-receiver.ts";

const EXAMPLE = join(import.meta.dir, "../../examples/observability.ts");

describe("examples/observability.ts", () => {
  let receiver: OtlpReceiver;
  let proc: ReturnType<typeof Bun.spawn>;
  let url = "";
  let stderr: { text: () => string };

  beforeAll(async () => {
    receiver = startOtlpReceiver();
    const port = freePort();
    url = `http://127.0.0.1:${port}`;
    proc = Bun.spawn([process.execPath, EXAMPLE, "--port", String(port), "--otel", "--log-format", "json"], {
      env: testEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "100" }),
      stdout: "ignore",
      stderr: "pipe",
    });
    stderr = collect(proc.stderr as ReadableStream<Uint8Array>);
    // The framework's startup line, a JSON object with --log-format json (docs/cli.md).
    await waitFor(
      () => stderr.text().includes('"msg":"listening on http://'),
      20_000,
      "the example to listen",
    );
  });
  afterAll(async () => {
    proc?.kill("SIGTERM");
    await proc?.exited;
    receiver?.stop();
  });

  test("a trace GET /orders/:id > load-order > price, linked to the client's span", async () => {
    const traceId = "5b8efff798038103d269b633813fc60c";
    const response = await fetch(`${url}/orders/42`, {
      headers: { traceparent: `00-${traceId}-eee19b7ec3c1b174-01` },
    });
    expect(await response.json()).toEqual({ id: 42, cents: 1999 });
    await receiver.waitFor((spans) => spans.filter((s) => s.traceId === traceId).length >= 3);
    const spans = receiver.spans.filter((s) => s.traceId === traceId);
    const by = (name: string) => spans.find((s) => s.name === name) as ReceivedSpan;
    expect(by("GET /orders/:id").parentSpanId).toBe("eee19b7ec3c1b174");
    expect(by("load-order").parentSpanId).toBe(by("GET /orders/:id").spanId);
    expect(by("load-order").attributes["order.id"]).toBe(42);
    expect(by("price").parentSpanId).toBe(by("load-order").spanId);
    expect(by("GET /orders/:id").resource["service.name"]).toBe("observability");
  });

  test("an unknown order: 404, the user's span marked as an error, the server span not", async () => {
    const traceId = "6c9f0008a9149214e37ac744924ed71d";
    const response = await fetch(`${url}/orders/9`, {
      headers: { traceparent: `00-${traceId}-fff19b7ec3c1b174-01` },
    });
    expect(response.status).toBe(404);
    await receiver.waitFor((spans) => spans.filter((s) => s.traceId === traceId).length >= 3);
    const spans = receiver.spans.filter((s) => s.traceId === traceId);
    expect(spans.find((s) => s.name === "load-order")?.statusCode).toBe(2);
    expect(spans.find((s) => s.name === "GET /orders/:id")?.statusCode).toBe(0);
    // A bad id is refused before the handler: 400, still one server span.
    expect((await fetch(`${url}/orders/abc`)).status).toBe(400);
  });

  test("/metrics counts the route; the access line is JSON with the trace id", async () => {
    const text = await (await fetch(`${url}/metrics`)).text();
    expect(text).toContain(
      'http_server_request_duration_seconds_count{method="GET",route="/orders/:id",status="200"} 1',
    );
    expect(text).toContain(
      'http_server_request_duration_seconds_count{method="GET",route="/orders/:id",status="404"} 1',
    );
    await waitFor(() => stderr.text().includes('"path":"/orders/42"'), 5_000, "the access line");
    const line = stderr
      .text()
      .split("\n")
      .find((l) => l.includes('"path":"/orders/42"')) as string;
    expect(JSON.parse(line)).toMatchObject({
      route: "/orders/:id",
      status: 200,
      trace_id: "5b8efff798038103d269b633813fc60c",
    });
  });
});
