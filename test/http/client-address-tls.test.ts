/**
 * The client's address over HTTPS and HTTP/2 (docs/client-address.md): an app serving TLS with
 * `http2: true`, `trustProxy` and an IP filter, spoken to by curl over HTTP/2 (ALPN). Without
 * proxy headers the scheme is the connection's (`https`); a trusted hop's headers give the
 * client's address and host; a denied address gets 403 over HTTP/2 too.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import { describeWithProgram } from "../helpers/system-program.ts";
import { curl, makeCert, type TestCert } from "../helpers/tls.ts";

describeWithProgram("openssl", "apt-get install openssl", "client address over TLS", () => {
  describeWithProgram("curl", "apt-get install curl", "client address over HTTP/2 (curl)", () => {
    let cert: TestCert;
    let server: ServerHandle;
    beforeAll(async () => {
      cert = await makeCert();
      const app = new Webfw(import.meta.path, {
        trustProxy: ["127.0.0.1"],
        ipFilter: { deny: ["203.0.113.0/24"] },
        errors: "problem",
      });
      app.get("/who", (request) => ({ ip: request.ipAddr, url: String(request.url) }));
      server = await app.start({
        port: 0,
        tls: { cert: cert.cert, key: cert.key },
        http2: true,
        accessLog: false,
      });
    });
    afterAll(async () => {
      await server?.stop(true);
      cert?.remove();
    });

    const get = (headers: string[]) =>
      curl(`${server.url}/who`, ["--http2", "--cacert", cert.cert, ...headers.flatMap((h) => ["-H", h])]);

    test("no proxy headers: the socket's address and the connection's https", async () => {
      const result = await get([]);
      expect([result.httpVersion, result.status]).toEqual(["2", 200]);
      expect(JSON.parse(result.body)).toEqual({
        ip: "127.0.0.1",
        url: `https://127.0.0.1:${server.port}/who`,
      });
    });

    test("a trusted hop's X-Forwarded-For and -Host over HTTP/2", async () => {
      const result = await get(["X-Forwarded-For: 6.6.6.6, 2001:db8::5", "X-Forwarded-Host: shop.example"]);
      expect([result.httpVersion, result.status]).toEqual(["2", 200]);
      expect(JSON.parse(result.body)).toEqual({ ip: "2001:db8::5", url: "https://shop.example/who" });
    });

    test("a denied client gets the 403 problem over HTTP/2", async () => {
      const result = await get(["X-Forwarded-For: 203.0.113.77"]);
      expect([result.httpVersion, result.status]).toEqual(["2", 403]);
      expect(result.headers["content-type"]).toBe("application/problem+json");
      expect(JSON.parse(result.body)).toMatchObject({ status: 403, title: "Forbidden" });
    });
  });
});
