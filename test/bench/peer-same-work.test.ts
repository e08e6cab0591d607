/**
 * The Elysia echo that does webfw's work before its handler (bench/servers/elysia.ts,
 * `BENCH_JSON_SAME_WORK=1`; docs/performance.md, "Issue 32, seventh pass: a peer doing the same
 * work") really does it: it echoes a plain POST, refuses a browser's cross-site POST with 403 as
 * webfw does, and answers a body that stalls past the read timeout with 408. A variant that skipped
 * any of them would be counted doing less than its name says.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { connect } from "node:net";
import { join } from "node:path";
import { type RunningServer, startServer } from "../../bench/lib/proc.ts";
import { describeWithProgram } from "../helpers/system-program.ts";

const ROOT = join(import.meta.dir, "../..");
const ELYSIA = join(ROOT, "bench/node_modules/elysia/package.json");
const BODY = JSON.stringify({ id: 7, name: "same work", tags: ["x"] });

for (const [sameWork, what] of [
  ["1", "the cross-site check, the body budget and the read deadline"],
  ["check", "the cross-site check alone"],
] as const)
  describeWithProgram(ELYSIA, "npm install --prefix bench", `Elysia doing webfw's POST work: ${what}`, () => {
    let server: RunningServer | undefined;
    let port = 0;

    beforeAll(async () => {
      server = await startServer(join(ROOT, "bench/servers/elysia.ts"), "0-1", {
        BENCH_SCENARIO: "json",
        BENCH_JSON_SAME_WORK: sameWork,
        BENCH_JSON_READ_TIMEOUT_MS: "300",
      });
      port = server.port;
    });

    afterAll(async () => {
      await server?.stop();
    });

    function post(headers: Record<string, string> = {}): Promise<Response> {
      return fetch(`http://127.0.0.1:${port}/json`, {
        method: "POST",
        body: BODY,
        headers: { "content-type": "application/json", ...headers },
      });
    }

    test("echoes a POST that carries neither Sec-Fetch-Site nor Origin", async () => {
      const response = await post();
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(JSON.parse(BODY));
    });

    test("echoes a same-origin browser POST", async () => {
      expect((await post({ "sec-fetch-site": "same-origin" })).status).toBe(200);
      expect((await post({ origin: `http://127.0.0.1:${port}` })).status).toBe(200);
    });

    test("refuses a cross-site browser POST with 403", async () => {
      const bySite = await post({ "sec-fetch-site": "cross-site", origin: "https://elsewhere.example" });
      expect(bySite.status).toBe(403);
      expect(await bySite.text()).toBe("Cross-site request refused");
      expect((await post({ origin: "https://elsewhere.example" })).status).toBe(403);
    });

    // The check alone has no read deadline to test.
    if (sameWork === "1")
      test("answers a body that stalls past the read timeout with 408", async () => {
        const answer = await new Promise<string>((resolve, reject) => {
          const socket = connect(port, "127.0.0.1", () => {
            // Ten of the hundred declared bytes, then nothing.
            socket.write(
              "POST /json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
                'Content-Length: 100\r\n\r\n{"id": 7, ',
            );
          });
          let received = "";
          socket.setEncoding("latin1");
          socket.on("data", (chunk: string) => {
            received += chunk;
            if (received.includes("\r\n\r\n")) {
              socket.destroy();
              resolve(received);
            }
          });
          socket.on("error", reject);
          setTimeout(() => {
            socket.destroy();
            reject(new Error(`no answer within 5 s: ${JSON.stringify(received)}`));
          }, 5000);
        });
        expect(answer).toStartWith("HTTP/1.1 408");
      });
  });
