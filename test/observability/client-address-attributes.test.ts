/**
 * A server span's `client.address` is the app's client (docs/client-address.md): behind a trusted
 * proxy, the address the proxy reports; `network.peer.address` stays the socket's. Without
 * `trustProxy` both are the socket's, in canonical form.
 */
import { expect, test } from "bun:test";
import type { Server } from "bun";
import { attachResolver, resolveTrustProxy } from "../../src/http/client-address.ts";
import { DispatchContext } from "../../src/http/request-context.ts";
import { requestAttributes } from "../../src/observability/http-attributes.ts";

const socket = (address: string) =>
  ({ requestIP: () => ({ address, port: 40000, family: "IPv4" }) }) as unknown as Server<unknown>;

test("client.address follows trustProxy; network.peer.address is the socket", () => {
  const raw = new Request("http://shop.example/x", { headers: { "x-forwarded-for": "203.0.113.7" } });
  const context = new DispatchContext();
  attachResolver(
    context,
    resolveTrustProxy(["10.0.0.0/8"]) as NonNullable<ReturnType<typeof resolveTrustProxy>>,
  );
  const attributes = requestAttributes(raw, socket("::ffff:10.1.2.3"), "/x", context);
  expect(attributes["client.address"]).toBe("203.0.113.7");
  expect(attributes["network.peer.address"]).toBe("::ffff:10.1.2.3");
});

test("without trustProxy the header is not read and the address is canonical", () => {
  const raw = new Request("http://shop.example/x", { headers: { "x-forwarded-for": "203.0.113.7" } });
  const attributes = requestAttributes(raw, socket("::ffff:198.51.100.7"), "/x");
  expect(attributes["client.address"]).toBe("198.51.100.7");
});
