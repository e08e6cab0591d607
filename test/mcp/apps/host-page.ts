/**
 * A minimal MCP Apps host, bundled for the browser by the Chromium test
 * (host.test.ts): the official v2 SDK client talks to the webfw endpoint
 * (cross-origin, over Streamable HTTP, declaring the extension), and the
 * ext-apps `AppBridge` runs the tool's UI in a sandboxed iframe (opaque
 * origin, `allow-scripts` only) under the CSP its resource metadata asks for.
 * `window.showTool(mcpUrl, tool, args)` does what a chat host does when the
 * model calls a tool: read the UI, mount it, pass the input and the result.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

interface UiMeta {
  csp?: {
    connectDomains?: string[];
    resourceDomains?: string[];
    frameDomains?: string[];
    baseUriDomains?: string[];
  };
  prefersBorder?: boolean;
}

/** What the test reads back: sizes the View reported, errors. */
const log = { sizes: [] as { width?: number; height?: number }[], initialized: 0, errors: [] as string[] };
(window as unknown as { hostLog: typeof log }).hostLog = log;

/** The CSP the extension's spec tells a host to build from `_meta.ui.csp` (restrictive by default). */
function policy(csp: UiMeta["csp"]): string {
  const resources = (csp?.resourceDomains ?? []).join(" ");
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resources}`,
    `style-src 'unsafe-inline' ${resources}`,
    `img-src data: ${resources}`,
    `font-src ${resources || "'none'"}`,
    `media-src data: ${resources}`,
    `connect-src ${(csp?.connectDomains ?? []).join(" ") || "'none'"}`,
    `frame-src ${(csp?.frameDomains ?? []).join(" ") || "'none'"}`,
    "object-src 'none'",
    `base-uri ${(csp?.baseUriDomains ?? []).join(" ") || "'self'"}`,
  ].join("; ");
}

function withPolicy(html: string, csp: UiMeta["csp"]): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy(csp)}">`;
  const head = /<head[^>]*>/i.exec(html);
  if (head === null) return meta + html;
  const at = head.index + head[0].length;
  return html.slice(0, at) + meta + html.slice(at);
}

async function showTool(mcpUrl: string, name: string, args: Record<string, unknown>): Promise<string> {
  const client = new Client(
    { name: "test-host", version: "1.0.0" },
    {
      capabilities: {
        extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
      },
    },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  const { tools } = await client.listTools();
  const tool = tools.find((item) => item.name === name);
  const uri = (tool?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
  if (tool === undefined || uri === undefined) throw new Error(`tool ${name} has no UI`);
  const read = await client.readResource({ uri });
  const content = read.contents[0] as { text?: string; mimeType?: string; _meta?: { ui?: UiMeta } };
  if (content.mimeType !== "text/html;profile=mcp-app" || content.text === undefined) {
    throw new Error(`unexpected UI resource ${content.mimeType}`);
  }

  const iframe = document.createElement("iframe");
  iframe.id = `view-${name}`;
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.style.cssText = `width: 560px; height: 200px; border: ${content._meta?.ui?.prefersBorder ? "1px solid #ccc" : "0"}`;
  document.body.append(iframe);

  const bridge = new AppBridge(
    client,
    { name: "test-host", version: "1.0.0" },
    { serverTools: {}, serverResources: {}, logging: {} },
    { hostContext: { theme: "light", toolInfo: { tool } } },
  );
  bridge.onsizechange = ({ width, height }) => {
    log.sizes.push({ width, height });
    if (height !== undefined) iframe.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => {
      log.initialized++;
      resolve();
    };
  });
  const window = iframe.contentWindow as Window;
  await bridge.connect(new PostMessageTransport(window, window));
  iframe.srcdoc = withPolicy(content.text, content._meta?.ui?.csp);
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  const result = await client.callTool({ name, arguments: args });
  await bridge.sendToolResult(result as Parameters<typeof bridge.sendToolResult>[0]);
  return iframe.id;
}

(window as unknown as { showTool: typeof showTool }).showTool = (...input) =>
  showTool(...input).catch((error: Error) => {
    log.errors.push(error.message);
    throw error;
  });
