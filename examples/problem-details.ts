/**
 * RFC 9457 problem details (docs/errors.md#problem-details): every error webfw
 * answers is `application/problem+json`, validation issues name where each
 * value came from, and `HttpError` carries `type`, `title` and `detail`.
 *
 *   bun examples/problem-details.ts
 *   curl -i localhost:8080/items/abc          # 400, errors: [{ location: "path", name: "id", … }]
 *   curl -i localhost:8080/orders/7           # 404 with the app's own problem type
 */
import {
  AuthenticationHandler,
  BearerGetter,
  HttpError,
  Identity,
  type Request,
  t,
  Webfw,
} from "../src/index.ts";

const app = new Webfw(import.meta.path, { errors: "problem", requestId: true, maxBodySize: 1024 });

class TokenAuth extends AuthenticationHandler {
  authenticate(request: Request): Identity | null {
    return this.tokenGetter.getToken(request) === "secret" ? new Identity({ claims: { user: "ada" } }) : null;
  }
}
app.configureAuthentication(new TokenAuth(new BearerGetter()));

app.get("/items/:id", ({ args }) => ({ id: args.id, page: args.page }), {
  args: { id: t.int(), page: t.int().default(1) },
});

app.post("/orders", ({ parsedBody }) => [parsedBody, 201], {
  body: t.object({ item: t.str().minLength(1), quantity: t.int().min(1) }),
});

// The app's own kind of problem: a stable `type` URI and `title`, a `detail` for this occurrence,
// and an extension member clients may read.
app.get("/orders/:id", ({ pathParams }) => {
  throw new HttpError(404, {
    type: "https://example.com/problems/order-not-found",
    title: "Order not found",
    detail: `There is no order ${pathParams.id}.`,
    extensions: { orderId: pathParams.id },
  });
});

app.get("/account", ({ identity }) => ({ user: identity?.claims.user }), { authRequired: true });

// An offloaded handler (`--workers 2`) answers the same problem as an inline one.
app.get(
  "/quota",
  () => {
    throw new HttpError(
      403,
      {
        type: "https://example.com/problems/out-of-credit",
        title: "Out of credit",
        detail: "30 needed, 10 left",
      },
      { "cache-control": "no-store" },
    );
  },
  { offload: true },
);

app.get("/crash", () => {
  throw new Error("connection string postgres://admin:hunter2@db");
});

export default app;

if (import.meta.main) await app.start();
