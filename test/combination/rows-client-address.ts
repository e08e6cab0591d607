/**
 * Combination rows of the client's address (docs/client-address.md): the suite's app trusts its
 * loopback as a proxy (`trustProxy` in app.ts; the suite's clients and its balancer connect from
 * there), so each exchange writes the proxy headers itself, as the proxy in front of the app
 * would. In every run mode (Workers: the offloaded handler gets the same address and URL;
 * processes; TLS + HTTP/2; two machines behind the balancer) and under every layer.
 */
import { expect } from "bun:test";
import type { Request } from "webfw";
import { type Feature, featurePath, httpExchange } from "./table.ts";

// What the proxy in front of the app reports: a forged entry left of the client it saw.
const FORWARDED = {
  "x-forwarded-for": "6.6.6.6, 2001:DB8::50",
  "x-forwarded-proto": "https",
  "x-forwarded-host": "shop.example",
};

function user(request: Request): string {
  return (request.identity?.claims.user as string | undefined) ?? "anonymous";
}

export const CLIENT_ADDRESS_ROWS: Feature[] = [
  {
    // The handler (inline or on a Worker) sees the client the proxy reported, and the URL it asked for.
    name: "client-address",
    register(app, ctx) {
      app.get(
        featurePath("client-address"),
        (request) =>
          ctx.guard(request)?.then(() => ({ never: true })) ?? {
            ip: request.ipAddr,
            url: String(request.url),
            user: user(request),
          },
        ctx.routeOptions,
      );
    },
    exchange: (base, init) =>
      httpExchange(base, featurePath("client-address"), {
        ...init,
        headers: { ...init.headers, ...FORWARDED },
      }),
    verify(result) {
      expect(result.status).toBe(200);
      expect(JSON.parse(result.body)).toEqual({
        ip: "2001:db8::50",
        url: "https://shop.example/f/client-address",
        user: "ada",
      });
    },
  },
  {
    // A route with a deny list: the denied client gets the 403 problem (before auth and the body),
    // the next client is served as usual, whatever layer or run mode is around it.
    name: "ip-filter",
    register(app, ctx) {
      app.post(
        featurePath("ip-filter"),
        async (request) =>
          ctx.guard(request)?.then(() => "never") ?? `filtered for ${user(request)}: ${request.text()}`,
        { ...ctx.routeOptions, ipFilter: { deny: ["203.0.113.0/24", "2001:db8:bad::/48"] } },
      );
    },
    async exchange(base, init) {
      const send = (client: string, headers: Record<string, string>) =>
        httpExchange(
          base,
          featurePath("ip-filter"),
          { ...init, headers: { ...headers, "x-forwarded-for": client } },
          { method: "POST", body: "payload" },
        );
      // The denied request is not part of the observability column's trace: its one span is the answer's.
      const { traceparent: _, ...untraced } = init.headers ?? {};
      const denied = await send("::ffff:203.0.113.66", untraced);
      const allowed = await send("198.51.100.9", init.headers ?? {});
      allowed.headers.set("x-denied", `${denied.status} ${denied.headers.get("content-type")}`);
      return allowed;
    },
    verify(result) {
      expect(result.status).toBe(200);
      expect(result.body).toBe("filtered for ada: payload");
      expect(result.headers.get("x-denied")).toBe("403 application/problem+json");
    },
  },
];
