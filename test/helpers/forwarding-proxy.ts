/**
 * A real forwarding HTTP proxy for tests (docs/client-address.md): a `Bun.serve` that passes each
 * request on to `upstream` with `fetch`, appending what a proxy appends: the address it received
 * the request from, the scheme the client used to reach it and the Host it was asked for, either
 * as `X-Forwarded-For`/`-Proto`/`-Host` (one entry per hop) or as an RFC 7239 `Forwarded` element.
 * `scheme` is what this proxy claims its clients used (a TLS-ending proxy says `https`).
 */
import type { Server } from "bun";

export interface ForwardingProxy {
  url: string;
  stop(): void;
}

export function startForwardingProxy(options: {
  hostname: string;
  upstream: string;
  headers: "x-forwarded" | "forwarded";
  scheme?: "http" | "https";
}): ForwardingProxy {
  const scheme = options.scheme ?? "http";
  const server: Server<unknown> = Bun.serve({
    hostname: options.hostname,
    port: 0,
    async fetch(request, self) {
      const peer = self.requestIP(request)?.address ?? "unknown";
      const url = new URL(request.url);
      const headers = new Headers(request.headers);
      const append = (name: string, value: string) => {
        const prior = headers.get(name);
        headers.set(name, prior ? `${prior}, ${value}` : value);
      };
      if (options.headers === "x-forwarded") {
        append("x-forwarded-for", peer);
        append("x-forwarded-proto", scheme);
        append("x-forwarded-host", url.host);
      } else {
        const node = peer.includes(":") ? `"[${peer}]:${40000 + (url.port.length % 10)}"` : peer;
        append("forwarded", `for=${node};proto=${scheme};host="${url.host}";by=_proxy`);
      }
      headers.delete("host");
      const body =
        request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
      const answer = await fetch(`${options.upstream}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        body,
      });
      return new Response(await answer.arrayBuffer(), { status: answer.status, headers: answer.headers });
    },
  });
  const host = options.hostname.includes(":") ? `[${options.hostname}]` : options.hostname;
  return { url: `http://${host}:${server.port}`, stop: () => server.stop(true) };
}
