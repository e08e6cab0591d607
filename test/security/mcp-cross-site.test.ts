/**
 * Findings 3 and 7 of issue #13, over raw sockets. (3) The MCP endpoint ran a
 * `tools/call` sent cross-site with no Content-Type and `Origin:
 * https://evil.example` (what a no-preflight browser fetch with a Blob body
 * sends): now the Content-Type is required (415), and a server on loopback
 * accepts only localhost names in Host and Origin by default (DNS
 * rebinding). (7) A `{name}` URI-template placeholder was checked for `/`
 * before decoding, so `file://..%2F..%2Fetc%2Fpasswd` gave `../../etc/passwd`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import { Results, startQuiet } from "./helpers.ts";
import { rawExchange } from "./raw-client.ts";

const results = new Results("mcp-cross-site");
let calls = 0;
const resourceNames: string[] = [];

function makeApp(configure?: (app: Webfw) => void): Webfw {
  const app = new Webfw(import.meta.path, { openapi: false });
  app.mcp.tool(
    function launch() {
      calls++;
      return "launched";
    },
    { description: "a tool with an effect" },
  );
  app.mcp.resource("file://{name}", ({ name }) => {
    resourceNames.push(name);
    return `contents of ${name}`;
  });
  configure?.(app);
  return app;
}

const CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "launch", arguments: {} },
});

function post(port: number, headers: Record<string, string>, body = CALL) {
  const lines = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  const request = `POST /mcp HTTP/1.1\r\n${lines}Accept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
  return rawExchange(port, request);
}

describe("loopback server (default policy)", () => {
  let handle: ServerHandle;
  let host: string;
  beforeAll(async () => {
    handle = await startQuiet(makeApp());
    host = `127.0.0.1:${handle.port}`;
  });
  afterAll(async () => {
    await handle.stop(true);
    results.write();
  });

  const refused: Array<[string, Record<string, string>, number]> = [
    ["no Content-Type, evil Origin (Blob body)", { Host: "127.0.0.1", Origin: "https://evil.example" }, 403],
    ["no Content-Type, no Origin", { Host: "127.0.0.1" }, 415],
    ["text/plain (simple request)", { Host: "127.0.0.1", "Content-Type": "text/plain" }, 415],
    [
      "form (simple request)",
      { Host: "127.0.0.1", "Content-Type": "application/x-www-form-urlencoded" },
      415,
    ],
    [
      "JSON from a foreign Origin",
      { Host: "127.0.0.1", Origin: "https://evil.example", "Content-Type": "application/json" },
      403,
    ],
    ["DNS rebinding: foreign Host", { Host: "evil.example", "Content-Type": "application/json" }, 403],
    [
      "DNS rebinding: foreign Host and Origin",
      { Host: "evil.example:80", Origin: "http://evil.example", "Content-Type": "application/json" },
      403,
    ],
    ["Origin null", { Host: "127.0.0.1", Origin: "null", "Content-Type": "application/json" }, 403],
  ];
  for (const [name, headers, status] of refused) {
    test(`${name}: ${status}, the tool does not run`, async () => {
      const before = calls;
      const reply = await post(handle.port, headers);
      results.add({ group: "MCP cross-site", input: name, outcome: String(reply.status) });
      expect(reply.status).toBe(status);
      expect(calls).toBe(before);
    });
  }

  test("a local client with JSON runs the tool", async () => {
    const before = calls;
    const reply = await post(handle.port, { Host: host, "Content-Type": "application/json" });
    expect(reply.status).toBe(200);
    expect(reply.body).toContain("launched");
    expect(calls).toBe(before + 1);
  });

  test("a localhost Origin is allowed", async () => {
    const reply = await post(handle.port, {
      Host: `localhost:${handle.port}`,
      Origin: `http://localhost:5173`,
      "Content-Type": "application/json; charset=utf-8",
    });
    expect(reply.status).toBe(200);
  });

  const read = (uri: string) =>
    JSON.stringify({ jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri } });
  for (const uri of [
    "file://..%2F..%2F..%2Fetc%2Fpasswd",
    "file://%2Fetc%2Fpasswd",
    "file://a%5C..%5C..%5Cetc",
    "file://..",
    "file://%2E%2E",
  ]) {
    test(`resources/read ${uri} matches no resource`, async () => {
      const seen = resourceNames.length;
      const reply = await post(handle.port, { Host: host, "Content-Type": "application/json" }, read(uri));
      results.add({ group: "MCP URI template", input: uri, outcome: reply.body.slice(0, 80) });
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.body).error).toBeDefined();
      expect(resourceNames.length).toBe(seen);
    });
  }

  test("an encoded single segment still decodes", async () => {
    const reply = await post(
      handle.port,
      { Host: host, "Content-Type": "application/json" },
      read("file://my%20notes.txt"),
    );
    expect(JSON.parse(reply.body).result.contents[0].text).toBe("contents of my notes.txt");
  });
});

describe("allowedHosts and allowedOrigins widen the default", () => {
  let handle: ServerHandle;
  beforeAll(async () => {
    handle = await startQuiet(
      makeApp((app) =>
        app.mcp.configure({ allowedHosts: ["mcp.example.com"], allowedOrigins: ["https://app.example.com"] }),
      ),
    );
  });
  afterAll(async () => {
    await handle.stop(true);
  });

  test("the listed Host and Origin are served, others refused", async () => {
    const ok = await post(handle.port, {
      Host: "mcp.example.com",
      Origin: "https://app.example.com",
      "Content-Type": "application/json",
    });
    expect(ok.status).toBe(200);
    expect(ok.headers["access-control-allow-origin"]).toBe("https://app.example.com");
    expect((await post(handle.port, { Host: "127.0.0.1", "Content-Type": "application/json" })).status).toBe(
      403,
    );
    const evil = await post(handle.port, {
      Host: "mcp.example.com",
      Origin: "https://evil.example",
      "Content-Type": "application/json",
    });
    expect(evil.status).toBe(403);
  });
});
