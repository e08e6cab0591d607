/**
 * The `ui` and `visibility` options of a tool (`app.mcp.tool`) and of a route
 * tool (`mcp:` route option): the MCP Apps extension (docs/mcp-apps.md). Types
 * only, plus two constants: the registry and the route option import them
 * without loading the rest of MCP Apps.
 */

/** The MCP Apps extension's identifier in the `extensions` capability (SEP-1724). */
export const UI_EXTENSION_ID = "io.modelcontextprotocol/ui";
/** The MIME type of an MCP App's HTML resource. */
export const UI_MIME_TYPE = "text/html;profile=mcp-app";

/** The URI of a tool's UI when its `ui` names none. */
export function defaultUiUri(toolName: string): string {
  return `ui://tools/${toolName}`;
}

/**
 * Origins the UI needs, which the host turns into its Content Security Policy. Left out: none
 * (the host's restrictive default: inline scripts and styles, `data:` images, no network).
 */
export interface McpUiCsp {
  /** Origins for `fetch`, XHR and WebSocket (`connect-src`). */
  connectDomains?: string[];
  /** Origins for scripts, styles, images, fonts and media (`script-src`, `style-src`, …); `https://*.example.com` allowed. */
  resourceDomains?: string[];
  /** Origins for nested iframes (`frame-src`). */
  frameDomains?: string[];
  /** Allowed `<base>` URIs (`base-uri`). */
  baseUriDomains?: string[];
}

/** One permission: `{}` (the extension's spelling) or `true` asks for it; `false` does not. */
export type McpUiPermission = Record<string, never> | boolean;

/** Browser features the UI asks for (the host may grant them through the iframe's `allow`). */
export interface McpUiPermissions {
  camera?: McpUiPermission;
  microphone?: McpUiPermission;
  geolocation?: McpUiPermission;
  clipboardWrite?: McpUiPermission;
}

/** Who may see and call a tool: the model (the agent's tool list), the app's UI, or both (the default). */
export type McpUiVisibility = "model" | "app";

/** What the UI is made of: exactly one of these. */
export type McpUiSource =
  /** A whole HTML document, served as given. */
  | { html: string }
  /**
   * A Mustache template of the body, rendered in the host's iframe with the call's data: the
   * structured result's fields, `result`, `input` (the arguments), `text`, `isError`, `ready`
   * and `error` (docs/mcp-apps.md, "Templates").
   */
  | { template: string }
  /** An HTML file (absolute, a `file:` URL, or relative to the working directory), read on each `resources/read`. */
  | { file: string | URL }
  /**
   * An HTML entry point bundled by Bun (`Bun.build`, `compile: true, target: "browser"`) into one
   * self-contained document (scripts and styles inlined), built on the first read and kept.
   */
  | { bundle: string | URL };

/** Everything about a UI besides its source: its resource and the metadata hosts read. */
export interface McpUiSettings {
  /** The `ui://` URI of the resource. Default `ui://tools/<tool name>`. */
  uri?: string;
  /** The resource's name in `resources/list`. Default: the tool's name. */
  name?: string;
  /** The resource's description in `resources/list`. */
  description?: string;
  /** Origins the UI needs (the host's CSP). */
  csp?: McpUiCsp;
  /** Browser features the UI asks for. */
  permissions?: McpUiPermissions;
  /** A dedicated sandbox origin, in the host's own format (host-specific). */
  domain?: string;
  /** Whether the host should draw a border and background around the UI. */
  prefersBorder?: boolean;
  /**
   * The size (CSS pixels) the document starts at. The extension has no size field: the View
   * reports its own size to the host (`ui/notifications/size-changed`), so webfw sizes the
   * document (`min-height`, `width` on `<html>`), which the View then reports.
   */
  preferredSize?: { width?: number; height?: number };
}

/** A UI as a tool names it: an HTML string, or a source with settings. */
export type McpUi = string | (McpUiSource & McpUiSettings);

/** What a tool's UI options say, as the registry stores them before MCP Apps is loaded. */
export interface McpUiToolOptions {
  ui?: McpUi;
  visibility?: McpUiVisibility[];
}
