/**
 * MCP Apps over the wire, with the official SDK clients (v1 `@modelcontextprotocol/sdk`, v2
 * `@modelcontextprotocol/client`) against a real server: the `ui://` resources are listed and
 * read with their MIME type and metadata; the extension is negotiated (a client without it gets
 * the tools as if they had no UI, the same text and structured content); a route tool's UI is
 * read under the route's own authentication; stateless mode; removal; malformed options.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v2 from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  AuthenticationHandler,
  Identity,
  type Request,
  type ServerHandle,
  t,
  Webfw,
} from "../../../src/index.ts";
import { mcpPost } from "../helpers/raw-session.ts";

const EXT = "io.modelcontextprotocol/ui";
const MIME = "text/html;profile=mcp-app";
const WITH_UI = { extensions: { [EXT]: { mimeTypes: [MIME] } } };
const SCHEMA = { type: "object" as const, properties: { n: { type: "integer" as const } }, required: ["n"] };

class TokenAuth extends AuthenticationHandler {
  authenticate(request: Request): Identity | null {
    return this.tokenGetter.getToken(request) === "ok" ? new Identity({ claims: { sub: "u" } }) : null;
  }
}

const dir = mkdtempSync(join(tmpdir(), "webfw-mcp-apps-"));
const FILE = join(dir, "view.html");
writeFileSync(FILE, "<!doctype html><html><head><title>v1</title></head><body>one</body></html>");

function makeApp(): Webfw {
  const app = new Webfw(import.meta.path);
  app.configureAuthentication(new TokenAuth());
  app.mcp.tool(({ n }) => ({ n: n * 2 }), {
    name: "double",
    args: { n: t.int() },
    outputSchema: SCHEMA,
    _meta: { "example.com/kept": 1 },
    ui: {
      html: "<!doctype html><html><head><title>d</title></head><body>double</body></html>",
      csp: { connectDomains: ["https://api.example.com"], resourceDomains: ["https://*.cdn.example"] },
      permissions: { clipboardWrite: {}, camera: true },
      domain: "double.example",
      prefersBorder: true,
      preferredSize: { width: 400, height: 300 },
      description: "the doubling view",
    },
  });
  // The same tool without a UI: what a client without the extension must get from `double`.
  app.mcp.tool(({ n }) => ({ n: n * 2 }), {
    name: "double_plain",
    args: { n: t.int() },
    outputSchema: SCHEMA,
    _meta: { "example.com/kept": 1 },
  });
  app.mcp.tool(() => "refreshed", { name: "refresh", visibility: ["app"] });
  app.mcp.tool(() => "file", { name: "from_file", ui: { file: FILE, uri: "ui://files/view" } });
  app.mcp.tool(() => "tpl", { name: "templated", ui: { template: "<b>{{n}}</b> {{input.n}}" } });
  app.get("/secret", () => ({ secret: 42 }), {
    authRequired: true,
    mcp: { name: "secret", ui: "<!doctype html><html><body>secret view</body></html>" },
  });
  return app;
}

async function v2Client(url: string, capabilities: v2.ClientCapabilities = {}, token?: string) {
  const client = new v2.Client({ name: "v2", version: "1.0.0" }, { capabilities });
  const requestInit = token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } };
  await client.connect(new v2.StreamableHTTPClientTransport(new URL(url), { requestInit }));
  return client;
}

/** The parts of JSON-RPC answers these tests read. */
interface RpcBody {
  result: { tools: { _meta: Record<string, unknown> }[]; contents: { text: string }[] };
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await mcpPost(url, body, headers);
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as RpcBody,
  };
}

let server: ServerHandle;
let url: string;
beforeAll(async () => {
  server = await makeApp().start({ port: 0, host: "127.0.0.1" });
  url = `${server.url}/mcp`;
});
afterAll(async () => {
  await server?.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

describe("the UI resources, listed and read by the SDK clients", () => {
  test("v1 lists and reads them (without declaring the extension)", async () => {
    const client = new V1Client({ name: "v1", version: "1.0.0" });
    await client.connect(new V1Transport(new URL(url)));
    const { resources } = await client.listResources();
    const double = resources.find((resource) => resource.uri === "ui://tools/double");
    expect(double).toEqual({
      uri: "ui://tools/double",
      name: "double",
      description: "the doubling view",
      mimeType: MIME,
      _meta: {
        ui: {
          csp: { connectDomains: ["https://api.example.com"], resourceDomains: ["https://*.cdn.example"] },
          permissions: { clipboardWrite: {}, camera: {} },
          domain: "double.example",
          prefersBorder: true,
        },
      },
    });
    expect(resources.map((resource) => resource.uri).sort()).toEqual([
      "ui://files/view",
      "ui://tools/double",
      "ui://tools/secret",
      "ui://tools/templated",
    ]);
    const read = await client.readResource({ uri: "ui://tools/double" });
    const content = read.contents[0] as { uri: string; mimeType: string; text: string; _meta: unknown };
    expect(content.uri).toBe("ui://tools/double");
    expect(content.mimeType).toBe(MIME);
    expect(content._meta).toEqual(double?._meta);
    // The preferred size is a style on <html>, first in the head.
    expect(content.text).toBe(
      "<!doctype html><html><head><style data-webfw-preferred-size>html{min-height:300px;width:400px}</style><title>d</title></head><body>double</body></html>",
    );
    await client.close();
  });

  test("v2 lists and reads them; a template is a whole document with nothing fetched from outside", async () => {
    const client = await v2Client(url);
    const { resources } = await client.listResources();
    expect(resources.filter((resource) => resource.mimeType === MIME).length).toBe(4);
    const read = await client.readResource({ uri: "ui://tools/templated" });
    const text = (read.contents[0] as { text: string }).text;
    expect(text.startsWith("<!doctype html>")).toBe(true);
    expect(text).toContain('"\\u003cb>{{n}}\\u003c/b> {{input.n}}"'); // the template, as script data
    expect(text).toContain("ui/initialize");
    expect(text).not.toMatch(/\b(src|href)\s*=\s*["']?(https?:)?\/\//i);
    await client.close();
  });

  test("a file UI is read again on each read", async () => {
    const client = await v2Client(url);
    const first = await client.readResource({ uri: "ui://files/view" });
    expect((first.contents[0] as { text: string }).text).toContain("one");
    writeFileSync(FILE, "<!doctype html><html><head></head><body>two</body></html>");
    const second = await client.readResource({ uri: "ui://files/view" });
    expect((second.contents[0] as { text: string }).text).toContain("two");
    await client.close();
  });
});

describe("negotiation of the extension", () => {
  test("the server declares it; a client with it sees _meta.ui and the app-only tools", async () => {
    const client = await v2Client(url, WITH_UI);
    expect(client.getServerCapabilities()?.extensions).toEqual({ [EXT]: {} });
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get("double")?._meta).toEqual({
      "example.com/kept": 1,
      ui: { resourceUri: "ui://tools/double" },
      "ui/resourceUri": "ui://tools/double",
    });
    expect(byName.get("refresh")?._meta).toEqual({ ui: { visibility: ["app"] } });
    expect(byName.get("secret")?._meta).toEqual({
      ui: { resourceUri: "ui://tools/secret" },
      "ui/resourceUri": "ui://tools/secret",
    });
    expect(byName.has("double_plain")).toBe(true);
    await client.close();
  });

  const without: [string, v2.ClientCapabilities][] = [
    ["no extension", {}],
    ["the extension for other MIME types only", { extensions: { [EXT]: { mimeTypes: ["text/x-other"] } } }],
  ];
  for (const [label, capabilities] of without) {
    test(`a client with ${label} gets the tools as without UIs, the same results`, async () => {
      const client = await v2Client(url, capabilities);
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      expect(names).not.toContain("refresh");
      const double = tools.find((tool) => tool.name === "double");
      const plain = tools.find((tool) => tool.name === "double_plain");
      expect(double?._meta).toEqual({ "example.com/kept": 1 });
      expect({ ...double, name: "x" }).toEqual({ ...plain, name: "x" });
      const withUi = await client.callTool({ name: "double", arguments: { n: 21 } });
      const without = await client.callTool({ name: "double_plain", arguments: { n: 21 } });
      expect(withUi).toEqual(without);
      expect(withUi.structuredContent).toEqual({ n: 42 });
      expect(withUi.content).toEqual([{ type: "text", text: '{"n":42}' }]);
      // An app-only tool stays callable (the host calls it for its UI on the same connection).
      expect((await client.callTool({ name: "refresh", arguments: {} })).content).toEqual([
        { type: "text", text: "refreshed" },
      ]);
      await client.close();
    });
  }

  test("an app without UIs declares no extension", async () => {
    const app = new Webfw(import.meta.path);
    app.mcp.tool(() => "x", { name: "plain" });
    const plain = await app.start({ port: 0, host: "127.0.0.1" });
    try {
      const client = await v2Client(`${plain.url}/mcp`, WITH_UI);
      expect(client.getServerCapabilities()?.extensions).toBeUndefined();
      await client.close();
    } finally {
      await plain.stop(true);
    }
  });

  test("stateless: no capabilities to read, so _meta.ui is listed", async () => {
    const app = new Webfw(import.meta.path);
    app.mcp.configure({ stateless: true });
    app.mcp.tool(() => "x", { name: "viewed", ui: "<p>v</p>" });
    const stateless = await app.start({ port: 0, host: "127.0.0.1" });
    try {
      const answer = await post(`${stateless.url}/mcp`, { jsonrpc: "2.0", id: 1, method: "tools/list" });
      expect(answer.status).toBe(200);
      expect(answer.body.result.tools[0]._meta.ui).toEqual({ resourceUri: "ui://tools/viewed" });
    } finally {
      await stateless.stop(true);
    }
  });
});

describe("authorization: the UI follows the app's auth", () => {
  const read = (uri: string) => ({ jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri } });

  test("a route tool's UI needs what the route needs: 401 without a token, the HTML with one", async () => {
    const refused = await post(url, read("ui://tools/secret"));
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain("Bearer");
    const batch = await post(url, [read("ui://tools/double"), read("ui://tools/secret")]);
    expect(batch.status).toBe(401);
    const allowed = await post(url, read("ui://tools/secret"), { authorization: "Bearer ok" });
    expect(allowed.status).toBe(200);
    expect(allowed.body.result.contents[0].text).toContain("secret view");
    // The other UIs need nothing more than the endpoint.
    expect((await post(url, read("ui://tools/double"))).status).toBe(200);
  });

  test("with authRequired on the endpoint, every UI needs a token", async () => {
    const app = new Webfw(import.meta.path);
    app.configureAuthentication(new TokenAuth());
    app.mcp.configure({ authRequired: true });
    app.mcp.tool(() => "x", { name: "viewed", ui: "<p>v</p>" });
    const guarded = await app.start({ port: 0, host: "127.0.0.1" });
    try {
      expect((await post(`${guarded.url}/mcp`, read("ui://tools/viewed"))).status).toBe(401);
      const ok = await post(`${guarded.url}/mcp`, read("ui://tools/viewed"), { authorization: "Bearer ok" });
      expect(ok.body.result.contents[0].text).toBe("<p>v</p>");
    } finally {
      await guarded.stop(true);
    }
  });
});

describe("registration", () => {
  test("removing a tool removes its UI resource", () => {
    const app = new Webfw(import.meta.path);
    app.mcp.tool(() => "x", { name: "gone", ui: "<p>x</p>" });
    expect(app.mcp.registry.findResource("ui://tools/gone")).toBeDefined();
    expect(app.mcp.removeTool("gone")).toBe(true);
    expect(app.mcp.registry.findResource("ui://tools/gone")).toBeUndefined();
    // …so the name and its UI can be registered again.
    app.mcp.tool(() => "x", { name: "gone", ui: "<p>y</p>" });
  });

  const bad: [string, Record<string, unknown>, RegExp][] = [
    [
      "two sources",
      { ui: { html: "<p>", template: "x" } },
      /exactly one of html, template, file, bundle \(got 2\)/,
    ],
    ["no source", { ui: { csp: {} } }, /exactly one of html, template, file, bundle \(got 0\)/],
    ["an empty template", { ui: { template: "  " } }, /ui.template must be a non-empty string/],
    ["a number", { ui: 3 }, /ui must be an HTML string/],
    ["an http uri", { ui: { html: "<p>", uri: "https://x" } }, /ui.uri must be a ui:\/\/ URI/],
    [
      "a csp path",
      { ui: { html: "<p>", csp: { connectDomains: ["https://x.com/path"] } } },
      /list of origins/,
    ],
    [
      "an unknown csp key",
      { ui: { html: "<p>", csp: { scriptDomains: [] } } },
      /ui.csp.scriptDomains is not one of/,
    ],
    [
      "an unknown permission",
      { ui: { html: "<p>", permissions: { usb: {} } } },
      /ui.permissions.usb is not one of/,
    ],
    [
      "a negative size",
      { ui: { html: "<p>", preferredSize: { height: -1 } } },
      /preferredSize.height must be a number/,
    ],
    ["a bad visibility", { visibility: ["user"] }, /visibility must be a non-empty list/],
    ["an empty visibility", { visibility: [] }, /visibility must be a non-empty list/],
    ["a missing file", { ui: { file: "/nonexistent/view.html" } }, /\/nonexistent\/view.html does not exist/],
    ["a missing bundle", { ui: { bundle: "/nonexistent/view.html" } }, /does not exist/],
    ["a border string", { ui: { html: "<p>", prefersBorder: "yes" } }, /prefersBorder must be a boolean/],
  ];
  for (const [label, options, message] of bad) {
    test(`refuses ${label} with a clear message, registering nothing`, () => {
      const app = new Webfw(import.meta.path);
      expect(() => app.mcp.tool(() => "x", { name: "t", ...options } as never)).toThrow(message);
      expect(app.mcp.registry.tools.has("t")).toBe(false);
      expect(app.mcp.registry.resources.length).toBe(0);
    });
  }

  test("refuses a UI URI taken by another resource", () => {
    const app = new Webfw(import.meta.path);
    app.mcp.resource("ui://tools/t", () => "<p>");
    expect(() => app.mcp.tool(() => "x", { name: "t", ui: "<p>" })).toThrow(
      /UI resource 'ui:\/\/tools\/t' is already registered/,
    );
    expect(app.mcp.registry.tools.has("t")).toBe(false);
  });

  test("a route tool with a bad ui stops the start", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/x", () => ({}), { mcp: { ui: { template: "" } } });
    await expect(app.start({ port: 0, host: "127.0.0.1" })).rejects.toThrow(
      /ui.template must be a non-empty string/,
    );
  });
});
