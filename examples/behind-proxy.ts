/**
 * An app behind a reverse proxy (docs/client-address.md): the proxy's `X-Forwarded-*` headers are
 * believed only from the proxy's own address, so `request.ipAddr`, the URL's scheme and host, the
 * session cookie's `Secure`, the rate limit and the access log all name the real client. An
 * admin area only the office network may reach, and an address the app refuses outright.
 *
 *   TRUSTED_PROXIES=10.0.0.0/8,127.0.0.1 bun examples/behind-proxy.ts
 *   # what nginx in front would send (here from 127.0.0.1, a trusted proxy):
 *   curl -H 'X-Forwarded-For: 203.0.113.7' -H 'X-Forwarded-Proto: https' \
 *        -H 'X-Forwarded-Host: shop.example' localhost:8080/whoami
 *   {"ip":"203.0.113.7","url":"https://shop.example/whoami"}
 *
 * nginx: proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
 *        proxy_set_header X-Forwarded-Proto $scheme; proxy_set_header X-Forwarded-Host $host;
 */
import { SubRouter, Webfw } from "../src/index.ts";

// Only your own proxies and load balancers: anyone else could write these headers.
const trusted = (process.env.TRUSTED_PROXIES ?? "127.0.0.1,::1").split(",").map((entry) => entry.trim());

const app = new Webfw(import.meta.path, {
  trustProxy: trusted,
  // Refused everywhere, 403 before the body is read (also in its IPv4-mapped IPv6 spelling).
  ipFilter: { deny: ["192.0.2.0/24"] },
  errors: "problem",
});

// Secure cookies when the client came over HTTPS (to the proxy): the proxy's report decides.
app.sessions({
  secretKey: process.env.SESSION_KEY ?? "change-me-to-32-bytes-or-more!!!",
  secure: "auto",
});

// Counted per client the proxy reports; IPv6 clients per /64 (one household, one count).
app.rateLimit({ limit: 100, windowMs: 60_000 });

app.get("/whoami", (request) => ({ ip: request.ipAddr, url: String(request.url) }));

app.post("/login", (request) => {
  request.session?.set("user", "ada");
  return { user: "ada" };
});

// The office network only (and loopback for the health check of the machine itself).
const admin = new SubRouter(import.meta.path, {
  prefix: "/admin",
  ipFilter: { allow: ["198.51.100.0/24", "2001:db8:cafe::/48", "127.0.0.1", "::1"] },
});
admin.get("/stats", () => ({ sessions: 1 }));
app.includeRouter(admin);

export default app;

if (import.meta.main) await app.start();
