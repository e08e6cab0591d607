/**
 * HTTPS with HTTP/2 (and, experimentally, HTTP/3) from one command line:
 *
 *   openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj /CN=localhost \
 *     -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -keyout key.pem -out cert.pem
 *   bun examples/https.ts --tls-cert cert.pem --tls-key key.pem --http2 --port 8443
 *   curl -k --http2 https://127.0.0.1:8443/          # HTTP/2
 *   curl -k --http1.1 https://127.0.0.1:8443/        # HTTP/1.1 on the same port
 *
 * The same flags work with --processes, --dev and the `webfw build` executable;
 * WebSockets (/echo) keep working for HTTP/1.1 clients beside HTTP/2. See docs/deployment.md.
 */
import { Webfw } from "../src/index.ts";

const app = new Webfw(import.meta.path);

app.get("/", () => ({ hello: "over TLS", pid: process.pid }));
app.get("/big", () => "x".repeat(256 * 1024));
app.post("/echo", async (request) => request.text());

app.websocket("/echo", async (ws) => {
  for await (const message of ws) await ws.sendText(`echo: ${message}`);
});

export default app;

if (import.meta.main) {
  await app.start(); // logs `listening on <url>` (docs/cli.md, "The startup line")
}
