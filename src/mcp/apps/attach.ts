/**
 * A tool's UI, checked and turned into what the registry stores: the tool's
 * `_meta.ui` (`resourceUri`, `visibility`) and its `ui://` resource
 * (`text/html;profile=mcp-app`, with the CSP, permissions, domain and border
 * metadata on the listing and on the content). Loaded by the registry only
 * when a tool names a `ui` or a `visibility` (docs/mcp-apps.md).
 */
import { htmlLoader, withPreferredSize } from "./content.ts";
import {
  defaultUiUri,
  type McpUi,
  type McpUiSettings,
  type McpUiSource,
  type McpUiToolOptions,
  type McpUiVisibility,
  UI_MIME_TYPE,
} from "./options.ts";

/** The UI's resource, ready for `Registry.addResource`. */
export interface UiResourcePlan {
  uri: string;
  name: string;
  description: string | undefined;
  mimeType: string;
  meta: Record<string, unknown>;
  read: () => Promise<{ text: string; mimeType: string; _meta: Record<string, unknown> }>;
}

/** What a tool's UI options become. */
export interface UiPlan {
  /** The tool's `_meta` with `ui` added (listed to clients that negotiated the extension). */
  meta: Record<string, unknown>;
  /** Only `visibility: ["app"]`: hidden from clients that did not negotiate the extension. */
  appOnly: boolean;
  resource: UiResourcePlan | undefined;
}

const SOURCES = ["html", "template", "file", "bundle"] as const;
const CSP_KEYS = ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"] as const;
const PERMISSIONS = ["camera", "microphone", "geolocation", "clipboardWrite"] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An origin the CSP may name: scheme://host[:port], the host may start with `*.`. */
const ORIGIN = /^(https?|wss?):\/\/(\*\.)?[a-z0-9.-]+(:\d{1,5})?$/i;

function checkCsp(value: unknown, where: string): McpUiSettings["csp"] {
  if (value === undefined) return undefined;
  if (!isRecord(value)) throw new TypeError(`${where}: ui.csp must be an object`);
  const out: Record<string, string[]> = {};
  for (const key of Object.keys(value)) {
    if (!(CSP_KEYS as readonly string[]).includes(key)) {
      throw new TypeError(`${where}: ui.csp.${key} is not one of ${CSP_KEYS.join(", ")}`);
    }
    const list = value[key];
    if (!Array.isArray(list) || !list.every((item) => typeof item === "string" && ORIGIN.test(item))) {
      throw new TypeError(
        `${where}: ui.csp.${key} must be a list of origins such as "https://api.example.com" or "https://*.example.com"`,
      );
    }
    out[key] = [...list];
  }
  return out;
}

function checkPermissions(value: unknown, where: string): McpUiSettings["permissions"] {
  if (value === undefined) return undefined;
  if (!isRecord(value)) throw new TypeError(`${where}: ui.permissions must be an object`);
  const out: Record<string, Record<string, never>> = {};
  for (const [key, granted] of Object.entries(value)) {
    if (!(PERMISSIONS as readonly string[]).includes(key)) {
      throw new TypeError(`${where}: ui.permissions.${key} is not one of ${PERMISSIONS.join(", ")}`);
    }
    // `{}` asks for it (the extension's shape); `true` is accepted as the same, `false`/absent does not ask.
    if (granted === true || isRecord(granted)) out[key] = {};
    else if (granted !== false && granted !== undefined) {
      throw new TypeError(`${where}: ui.permissions.${key} must be {} or a boolean`);
    }
  }
  return out;
}

function checkSize(value: unknown, where: string): McpUiSettings["preferredSize"] {
  if (value === undefined) return undefined;
  if (!isRecord(value)) throw new TypeError(`${where}: ui.preferredSize must be { width?, height? }`);
  for (const [key, size] of Object.entries(value)) {
    if (key !== "width" && key !== "height")
      throw new TypeError(`${where}: ui.preferredSize.${key} is unknown`);
    if (
      size !== undefined &&
      (typeof size !== "number" || !Number.isFinite(size) || size <= 0 || size > 10_000)
    ) {
      throw new TypeError(`${where}: ui.preferredSize.${key} must be a number of pixels in (0, 10000]`);
    }
  }
  return value as McpUiSettings["preferredSize"];
}

function checkVisibility(value: unknown, where: string): McpUiVisibility[] | undefined {
  if (value === undefined) return undefined;
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((item) => item === "model" || item === "app") ||
    new Set(value).size !== value.length
  ) {
    throw new TypeError(`${where}: visibility must be a non-empty list of "model" and "app"`);
  }
  return [...value];
}

/** The source and settings of a `ui` option; exactly one source. */
function splitUi(ui: McpUi, where: string): { source: McpUiSource; settings: McpUiSettings } {
  if (typeof ui === "string") return { source: { html: ui }, settings: {} };
  if (!isRecord(ui)) {
    throw new TypeError(`${where}: ui must be an HTML string or { html | template | file | bundle, … }`);
  }
  const given = SOURCES.filter((key) => ui[key] !== undefined);
  if (given.length !== 1) {
    throw new TypeError(
      `${where}: ui needs exactly one of html, template, file, bundle (got ${given.length})`,
    );
  }
  const key = given[0] as (typeof SOURCES)[number];
  const value = ui[key];
  if (key === "html" || key === "template") {
    if (typeof value !== "string" || value.trim() === "")
      throw new TypeError(`${where}: ui.${key} must be a non-empty string`);
  } else if (typeof value !== "string" && !(value instanceof URL)) {
    throw new TypeError(`${where}: ui.${key} must be a path or a file: URL`);
  }
  return { source: { [key]: value } as McpUiSource, settings: ui };
}

/** Checks a tool's `ui` and `visibility`; throws a TypeError naming the bad field. */
export function planUi(
  toolName: string,
  toolMeta: Record<string, unknown> | undefined,
  options: McpUiToolOptions,
  where = `MCP tool '${toolName}'`,
): UiPlan {
  const visibility = checkVisibility(options.visibility, where);
  const toolUi: Record<string, unknown> = {};
  let resource: UiResourcePlan | undefined;
  if (options.ui !== undefined) {
    const { source, settings } = splitUi(options.ui, where);
    const uri = settings.uri ?? defaultUiUri(toolName);
    if (typeof uri !== "string" || !/^ui:\/\/[^\s]+$/.test(uri)) {
      throw new TypeError(`${where}: ui.uri must be a ui:// URI without spaces`);
    }
    for (const key of ["name", "description", "domain"] as const) {
      if (settings[key] !== undefined && typeof settings[key] !== "string") {
        throw new TypeError(`${where}: ui.${key} must be a string`);
      }
    }
    if (settings.prefersBorder !== undefined && typeof settings.prefersBorder !== "boolean") {
      throw new TypeError(`${where}: ui.prefersBorder must be a boolean`);
    }
    const resourceUi: Record<string, unknown> = {};
    const csp = checkCsp(settings.csp, where);
    const permissions = checkPermissions(settings.permissions, where);
    const size = checkSize(settings.preferredSize, where);
    if (csp !== undefined) resourceUi.csp = csp;
    if (permissions !== undefined) resourceUi.permissions = permissions;
    if (settings.domain !== undefined) resourceUi.domain = settings.domain;
    if (settings.prefersBorder !== undefined) resourceUi.prefersBorder = settings.prefersBorder;
    const meta = { ui: resourceUi };
    const load = htmlLoader(source, toolName, where);
    resource = {
      uri,
      name: settings.name ?? toolName,
      description: settings.description,
      mimeType: UI_MIME_TYPE,
      meta,
      read: async () => ({
        text: withPreferredSize(await load(), size),
        mimeType: UI_MIME_TYPE,
        _meta: meta,
      }),
    };
    toolUi.resourceUri = uri;
  }
  if (visibility !== undefined) toolUi.visibility = visibility;
  const meta: Record<string, unknown> = {
    ...toolMeta,
    ui: { ...(isRecord(toolMeta?.ui) ? toolMeta.ui : {}), ...toolUi },
  };
  // The deprecated flat key, which hosts of the extension's first releases still read.
  if (resource !== undefined) meta["ui/resourceUri"] = resource.uri;
  return { meta, appOnly: visibility !== undefined && !visibility.includes("model"), resource };
}
