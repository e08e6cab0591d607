/**
 * Response compression: zstd, br or gzip, whichever the client prefers (docs/compression.md).
 *
 *   bun examples/compression.ts --port 8080
 *   curl --compressed -sv http://127.0.0.1:8080/report -o /dev/null   # Content-Encoding: zstd (curl's pick)
 *   curl -H 'Accept-Encoding: gzip' --compressed -N http://127.0.0.1:8080/feed   # gzip, line by line
 *
 * /report is JSON (compressed per request), /catalog a const route (compressed once at start,
 * one variant per coding), /feed an NDJSON stream compressed as it is produced, /events SSE
 * (never compressed).
 */
import { sse, Webfw } from "../src/index.ts";

const app = new Webfw(import.meta.path, {
  // Codings in the server's order of preference; bodies under 1 KiB are sent as they are.
  compression: { encodings: ["zstd", "br", "gzip"], threshold: 1024 },
});

const products = Array.from({ length: 500 }, (_, i) => ({
  id: i + 1,
  name: `Product ${i + 1}`,
  price: (i % 50) + 0.99,
}));

app.get("/report", () => ({ generatedAt: new Date().toISOString(), products }));

app.get("/catalog", () => products, { const: true });

app.get("/feed", (request) => {
  const count = Number(request.queryParams.get("count", "5"));
  return new Response(
    (async function* () {
      for (let i = 1; i <= count; i++) {
        yield `${JSON.stringify({ tick: i, products: products.slice(0, 20) })}\n`;
        await Bun.sleep(100);
      }
    })() as unknown as BodyInit,
    { headers: { "content-type": "application/x-ndjson" } },
  );
});

app.get("/events", () =>
  sse(
    (async function* () {
      for (let i = 1; i <= 3; i++) yield { data: `event ${i}` };
    })(),
  ),
);

export default app;

if (import.meta.main) {
  await app.start(); // logs `listening on <url>` (docs/cli.md, "The startup line")
}
