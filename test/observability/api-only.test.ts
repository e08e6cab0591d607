/**
 * `tracing: true` without `--otel`: the server span goes through `@opentelemetry/api` only. With no
 * SDK registered nothing is made per request (the no-op bench row); an SDK the application
 * registers itself, even after the app started, records the spans from then on.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { context, propagation, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { Webfw } from "../../src/index.ts";
import { sdkPresent } from "../../src/observability/server-span.ts";

afterEach(() => {
  // The test process is shared by every test file: leave the API as it was (no SDK).
  trace.disable();
  propagation.disable();
  context.disable();
});

describe("tracing: true through the API alone", () => {
  test("no SDK: answers are unchanged and nothing is recorded", async () => {
    expect(sdkPresent()()).toBe(false);
    const app = new Webfw(import.meta.path, { tracing: true });
    app.get("/users/:id", ({ pathParams }) => ({ id: pathParams.id }));
    const response = await app.request("/users/3", {
      headers: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
    });
    expect(await response.json()).toEqual({ id: "3" });
    expect((await app.request("/missing")).status).toBe(404);
  });

  test("the application's own SDK, registered after the build, records server spans from then on", async () => {
    const app = new Webfw(import.meta.path, { tracing: true });
    app.get("/users/:id", ({ pathParams }) => ({ id: pathParams.id }));
    app.get("/boom", () => {
      throw new RangeError("out of range");
    });
    // Built (and one request served) before any SDK exists.
    expect((await app.request("/users/0")).status).toBe(200);

    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(
      new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
    );
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    expect(sdkPresent()()).toBe(true);

    await app.request("/users/9", {
      headers: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
    });
    expect((await app.request("/boom")).status).toBe(500);
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name)).toEqual(["GET /users/:id", "GET /boom"]);
    const [users, boom] = spans;
    expect(users?.spanContext().traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(users?.parentSpanContext?.spanId).toBe("b7ad6b7169203331");
    expect(users?.attributes["http.route"]).toBe("/users/:id");
    expect(users?.attributes["http.response.status_code"]).toBe(200);
    expect(boom?.status.code).toBe(2);
    expect(boom?.attributes["error.type"]).toBe("RangeError");
    expect(boom?.events.map((event) => event.name)).toEqual(["exception"]);
  });
});
