/**
 * TLS, HTTP/2 and HTTP/3 through `app.start()` (src/transport/): Debian's curl speaks
 * HTTP/2 (ALPN and prior knowledge) to the server, a WebSocket client upgrades over
 * HTTP/1.1 on the same TLS port, and Bun's own QUIC client speaks HTTP/3 (curl 7.88
 * on Debian 12 has no HTTP/3).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import { TlsConfigError } from "../../src/transport/tls.ts";
import { describeWithProgram } from "../helpers/system-program.ts";
import { curl, makeCert, type TestCert } from "../helpers/tls.ts";

describeWithProgram(
  "openssl",
  "apt-get install openssl",
  "TLS, HTTP/2 and HTTP/3 (certificates made with openssl)",
  () => {
    function makeApp(): Webfw {
      const app = new Webfw(import.meta.path);
      app.get("/", () => "hello over TLS");
      app.get("/json", () => ({ ok: true }));
      app.get("/const", () => "a const route", { const: true });
      app.post("/echo", async (request) => request.text());
      app.websocket("/ws", async (ws) => {
        for await (const message of ws) await ws.sendText(`echo: ${message}`);
      });
      return app;
    }

    /** One WebSocket round trip; resolves with the reply. */
    function wsEcho(url: string, ca: string, message: string): Promise<string> {
      return new Promise((resolve, reject) => {
        const ws = new WebSocket(url, { tls: { ca } } as unknown as string[]);
        const timer = setTimeout(() => reject(new Error("no WebSocket reply")), 5000);
        ws.onopen = () => ws.send(message);
        ws.onmessage = (event) => {
          clearTimeout(timer);
          resolve(String(event.data));
          ws.close();
        };
        ws.onerror = () => {
          clearTimeout(timer);
          reject(new Error("WebSocket error"));
        };
      });
    }

    let cert: TestCert;
    beforeAll(async () => {
      cert = await makeCert();
    });
    afterAll(() => cert?.remove());

    describeWithProgram("curl", "apt-get install curl", "HTTPS with HTTP/2 (curl)", () => {
      let server: ServerHandle;
      beforeAll(async () => {
        server = await makeApp().start({ port: 0, tls: { cert: cert.cert, key: cert.key }, http2: true });
      });
      afterAll(() => server.stop());

      test("the handle's url says https", () => {
        expect(server.url).toBe(`https://127.0.0.1:${server.port}`);
      });

      test("curl --http2 negotiates HTTP/2 by ALPN and checks the certificate", async () => {
        const result = await curl(`${server.url}/`, ["--http2", "--cacert", cert.cert]);
        expect(result.code).toBe(0);
        expect(result.httpVersion).toBe("2");
        expect(result.status).toBe(200);
        expect(result.body).toBe("hello over TLS");
        expect(result.headers["content-type"]).toStartWith("text/plain");
      });

      test("curl --http2-prior-knowledge over TLS, JSON, const route and a POST body", async () => {
        const json = await curl(`${server.url}/json`, ["--http2-prior-knowledge", "--cacert", cert.cert]);
        expect([json.httpVersion, json.status, json.body]).toEqual(["2", 200, '{"ok":true}']);
        const fixed = await curl(`${server.url}/const`, ["--http2", "--cacert", cert.cert]);
        expect([fixed.httpVersion, fixed.status, fixed.body]).toEqual(["2", 200, "a const route"]);
        const echo = await curl(`${server.url}/echo`, [
          "--http2",
          "--cacert",
          cert.cert,
          "--data-binary",
          "x".repeat(100_000),
        ]);
        expect([echo.httpVersion, echo.status, echo.body.length]).toEqual(["2", 200, 100_000]);
        const missing = await curl(`${server.url}/nope`, ["--http2", "--cacert", cert.cert]);
        expect([missing.httpVersion, missing.status]).toEqual(["2", 404]);
      });

      test("HTTP/1.1 clients still get HTTP/1.1 on the same port", async () => {
        const result = await curl(`${server.url}/`, ["--http1.1", "--cacert", cert.cert]);
        expect([result.httpVersion, result.status, result.body]).toEqual(["1.1", 200, "hello over TLS"]);
      });

      test("plain HTTP to the TLS port does not get an answer", async () => {
        const result = await curl(`http://127.0.0.1:${server.port}/`);
        expect(result.status).not.toBe(200);
      });

      test("a WebSocket upgrades over HTTP/1.1 beside HTTP/2 (wss://)", async () => {
        const reply = await wsEcho(
          `wss://127.0.0.1:${server.port}/ws`,
          readFileSync(cert.cert, "utf8"),
          "ping",
        );
        expect(reply).toBe("echo: ping");
      });
    });

    describeWithProgram("curl", "apt-get install curl", "HTTP/2 without TLS (h2c, prior knowledge)", () => {
      test("curl --http2-prior-knowledge gets HTTP/2; the url stays http", async () => {
        const server = await makeApp().start({ port: 0, http2: true });
        try {
          expect(server.url).toStartWith("http://");
          const h2 = await curl(`${server.url}/json`, ["--http2-prior-knowledge"]);
          expect([h2.httpVersion, h2.status, h2.body]).toEqual(["2", 200, '{"ok":true}']);
          const h1 = await curl(`${server.url}/json`);
          expect([h1.httpVersion, h1.status]).toEqual(["1.1", 200]);
        } finally {
          await server.stop();
        }
      });
    });

    describe("HTTP/3 (Bun's QUIC client; experimental)", () => {
      test("start({ tls, http3 }) answers over QUIC and advertises h3 in Alt-Svc", async () => {
        const server = await makeApp().start({
          port: 0,
          tls: { cert: cert.cert, key: cert.key },
          http3: true,
        });
        try {
          const ca = readFileSync(cert.cert, "utf8");
          // Bun's HTTP/3 client takes no custom CA (it answers HTTP3Unsupported): skip verification there only.
          const h3 = await fetch(`${server.url}/json`, {
            protocol: "http3",
            tls: { rejectUnauthorized: false },
            signal: AbortSignal.timeout(5000),
          } as RequestInit);
          expect(h3.status).toBe(200);
          expect(await h3.json()).toEqual({ ok: true });
          const h1 = await fetch(`${server.url}/json`, { protocol: "http1.1", tls: { ca } } as RequestInit);
          expect(h1.headers.get("alt-svc")).toBe(`h3=":${server.port}"; ma=86400`);
        } finally {
          await server.stop();
        }
      });

      test("without http3 there is no QUIC listener: the HTTP/3 request times out", async () => {
        const server = await makeApp().start({ port: 0, tls: { cert: cert.cert, key: cert.key } });
        try {
          const ca = readFileSync(cert.cert, "utf8");
          const attempt = fetch(`${server.url}/json`, {
            protocol: "http3",
            tls: { rejectUnauthorized: false },
            signal: AbortSignal.timeout(1500),
          } as RequestInit);
          await expect(attempt).rejects.toThrow("timed out");
          const h1 = await fetch(`${server.url}/json`, { tls: { ca } } as RequestInit);
          expect(h1.headers.get("alt-svc")).toBeNull();
        } finally {
          await server.stop();
        }
      });
    });

    describe("TLS settings that cannot work fail start() and say why", () => {
      const start = (options: Parameters<Webfw["start"]>[0]) => makeApp().start({ port: 0, ...options });

      test("http3 without tls", async () => {
        await expect(start({ http3: true })).rejects.toThrow("http3 needs tls");
      });

      test("a missing file, a file that is not PEM, a missing key", async () => {
        await expect(start({ tls: { cert: `${cert.dir}/nope.pem`, key: cert.key } })).rejects.toThrow(
          `tls.cert: cannot read '${cert.dir}/nope.pem' (no such file)`,
        );
        await expect(start({ tls: { cert: import.meta.path, key: cert.key } })).rejects.toThrow("is not PEM");
        await expect(start({ tls: { cert: cert.cert } as never })).rejects.toThrow(
          "tls needs both cert and key",
        );
        await expect(start({ http2: "yes" as never })).rejects.toThrow("http2 must be true or false");
      });

      test("a key that does not belong to the certificate", async () => {
        const other = await makeCert();
        try {
          const failure = start({ tls: { cert: cert.cert, key: other.key } });
          await expect(failure).rejects.toBeInstanceOf(TlsConfigError);
          await expect(failure).rejects.toThrow("the certificate or key was refused");
        } finally {
          other.remove();
        }
      });

      test("an encrypted key: works with its passphrase, refused with a wrong one", async () => {
        const locked = await makeCert("s3cret");
        try {
          const wrong = start({ tls: { cert: locked.cert, key: locked.key, passphrase: "nope" } });
          await expect(wrong).rejects.toThrow("the certificate or key was refused");
          // PEM text and Bun.file() work as well as paths.
          const server = await start({
            tls: { cert: readFileSync(locked.cert, "utf8"), key: Bun.file(locked.key), passphrase: "s3cret" },
          });
          try {
            const ca = readFileSync(locked.cert, "utf8");
            const response = await fetch(`${server.url}/json`, { tls: { ca } } as RequestInit);
            expect(await response.json()).toEqual({ ok: true });
          } finally {
            await server.stop();
          }
        } finally {
          locked.remove();
        }
      });
    });
  },
);
