/**
 * Observability: a server span per request, your own spans under it, Prometheus metrics and
 * JSON logs (docs/observability.md).
 *
 *   OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 bun examples/observability.ts --otel --log-format json
 *   curl localhost:8080/orders/42        # a trace: GET /orders/:id > load-order > price
 *   curl localhost:8080/metrics          # Prometheus text format
 *
 * `tracing: true` instruments through @opentelemetry/api (recorded when `--otel` or your own SDK is
 * on); `metrics: true` serves /metrics. Both cost nothing when left out.
 */
import { SpanStatusCode, trace } from "@opentelemetry/api";
import { HttpError, t, Webfw } from "../src/index.ts";

const app = new Webfw(import.meta.path, { tracing: true, metrics: true });
const tracer = trace.getTracer("orders");

const prices: Record<number, number> = { 42: 1999, 7: 350 };

app.get(
  "/orders/:id",
  async ({ args }) =>
    // A span of your own: a child of the request's server span, with attributes of your domain.
    tracer.startActiveSpan("load-order", async (span) => {
      span.setAttribute("order.id", args.id);
      try {
        await Bun.sleep(2); // the database, say
        const cents = tracer.startActiveSpan("price", (inner) => {
          const found = prices[args.id];
          inner.end();
          return found;
        });
        if (cents === undefined) throw new HttpError(404, `no order ${args.id}`);
        return { id: args.id, cents };
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    }),
  { args: { id: t.int() } },
);

app.get("/health", () => "ok");

if (import.meta.main) {
  await app.start(); // logs `listening on <url>` (docs/cli.md, "The startup line")
}

export default app;
