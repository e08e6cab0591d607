/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Browser globals: the package's declaration build (tsconfig.types.json, lib ESNext) then has the DOM
// lib that tsconfig.json checks with; TypeScript (5.5+) does not copy these directives into the
// emitted .d.ts, so users' globals are untouched.
/**
 * The script of a template UI (`ui: { template }`), run by the browser inside
 * the host's iframe: the View side of the MCP Apps protocol, JSON-RPC over
 * `postMessage` with the host, as the extension's spec describes it
 * ("ui/initialize", tool input and result notifications, `tools/call`, size
 * changes). Written by hand rather than bundling the ext-apps `App` so that a
 * template needs no build step and webfw no browser bundle at run time; UIs
 * that want the `App` client bundle it themselves (docs/mcp-apps.md).
 *
 * `viewRuntime` is never called on the server: its source text
 * (`String(viewRuntime)`) is inlined into the template's document, so it may
 * only use browser globals and its own parameters.
 */

/** The part of Mustache the runtime uses (the browser build defines `window.Mustache`). */
export interface MustacheLike {
  render(template: string, view: object): string;
}

interface RpcMessage {
  jsonrpc?: string;
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message?: string };
}

interface ContentItem {
  type?: string;
  text?: string;
}

export function viewRuntime(
  template: string,
  appInfo: { name: string; version: string },
  mustache: MustacheLike,
): void {
  const root = document.getElementById("webfw-view") as HTMLElement;
  const state: Record<string, unknown> = {
    input: {},
    result: undefined,
    text: "",
    isError: false,
    ready: false,
    error: undefined,
  };
  const pending = new Map<
    number,
    { resolve: (value: Record<string, unknown>) => void; reject: (error: Error) => void }
  >();
  let nextId = 1;
  let lastWidth = -1;
  let lastHeight = -1;

  const post = (message: RpcMessage): void => {
    // The host's origin is unknown to a sandboxed (opaque-origin) document; the host checks `source`.
    window.parent.postMessage({ jsonrpc: "2.0", ...message }, "*");
  };
  const request = (method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      post({ id, method, params });
    });
  const reportSize = (): void => {
    const element = document.documentElement;
    const width = Math.ceil(element.getBoundingClientRect().width);
    const height = Math.ceil(element.getBoundingClientRect().height);
    if (width === lastWidth && height === lastHeight) return;
    lastWidth = width;
    lastHeight = height;
    post({ method: "ui/notifications/size-changed", params: { width, height } });
  };
  const render = (): void => {
    const result = state.result;
    const fields = typeof result === "object" && result !== null && !Array.isArray(result) ? result : {};
    root.innerHTML = mustache.render(template, { ...fields, ...state });
    reportSize();
  };
  const applyResult = (result: Record<string, unknown>): void => {
    const content = Array.isArray(result.content) ? (result.content as ContentItem[]) : [];
    state.result = result.structuredContent;
    state.text = content
      .filter((item) => item.type === "text")
      .map((item) => item.text)
      .join("\n");
    state.isError = result.isError === true;
    state.ready = true;
    state.error = undefined;
    render();
  };
  const applyTheme = (context: unknown): void => {
    const theme = (context as { theme?: unknown } | undefined)?.theme;
    if (theme === "light" || theme === "dark") document.documentElement.style.colorScheme = theme;
  };
  const callTool = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const result = await request("tools/call", { name, arguments: args });
    state.input = args;
    applyResult(result);
    return result;
  };

  window.addEventListener("message", (event: MessageEvent) => {
    if (event.source !== window.parent) return;
    const message = event.data as RpcMessage;
    if (typeof message !== "object" || message === null || message.jsonrpc !== "2.0") return;
    if (message.method === undefined) {
      const waiting = typeof message.id === "number" ? pending.get(message.id) : undefined;
      if (waiting === undefined) return;
      pending.delete(message.id as number);
      if (message.error) waiting.reject(new Error(message.error.message ?? "request failed"));
      else waiting.resolve(message.result ?? {});
      return;
    }
    const params = message.params ?? {};
    if (message.id !== undefined) {
      // Requests from the host: a ping, or teardown (nothing to save); anything else is unknown.
      if (message.method === "ping" || message.method === "ui/resource-teardown")
        post({ id: message.id, result: {} });
      else
        post({
          id: message.id,
          error: { message: `method not found: ${message.method}`, code: -32601 } as never,
        });
      return;
    }
    if (message.method === "ui/notifications/tool-input") {
      state.input = (params.arguments as Record<string, unknown> | undefined) ?? {};
      render();
    } else if (message.method === "ui/notifications/tool-result") applyResult(params);
    else if (message.method === "ui/notifications/tool-cancelled") {
      state.error = typeof params.reason === "string" ? params.reason : "cancelled";
      render();
    } else if (message.method === "ui/notifications/host-context-changed") applyTheme(params);
  });

  // Declarative calls: <button data-mcp-tool="name" data-mcp-args='{"page": 2}'> calls the tool
  // through the host and renders its result in place of the current one.
  document.addEventListener("click", (event: MouseEvent) => {
    const target = (event.target as Element | null)?.closest("[data-mcp-tool]");
    if (!target) return;
    event.preventDefault();
    let args: Record<string, unknown>;
    try {
      args = JSON.parse(target.getAttribute("data-mcp-args") || "{}") as Record<string, unknown>;
    } catch {
      state.error = "data-mcp-args is not JSON";
      render();
      return;
    }
    callTool(target.getAttribute("data-mcp-tool") as string, args).catch((error: Error) => {
      state.error = error.message;
      render();
    });
  });

  (window as unknown as { mcpView: unknown }).mcpView = { callTool, render, state };
  new ResizeObserver(reportSize).observe(document.documentElement);
  render();
  request("ui/initialize", { appInfo, appCapabilities: {}, protocolVersion: "2026-01-26" }).then(
    (result) => {
      applyTheme(result.hostContext);
      post({ method: "ui/notifications/initialized", params: {} });
    },
    (error: Error) => {
      state.error = error.message;
      render();
    },
  );
}
