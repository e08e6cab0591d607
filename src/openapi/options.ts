import { normalisePattern } from "../router/route.ts";
import type { OpenApiOptions, ResolvedOpenApiOptions } from "./types.ts";

const KEYS = new Set([
  "title",
  "version",
  "description",
  "document",
  "servers",
  "path",
  "docsPath",
  "docsUi",
]);

/**
 * Checks the `openapi` app option at construction, so a typo fails at start
 * rather than as a missing page. `undefined` and `true` mean the defaults.
 */
export function resolveOpenApiOptions(
  value: OpenApiOptions | boolean | undefined,
): false | ResolvedOpenApiOptions {
  if (value === false) return false;
  const options: unknown = value === undefined || value === true ? {} : value;
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError("openapi must be false or an options object");
  }
  const given = options as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!KEYS.has(key))
      throw new TypeError(`unknown openapi option '${key}' (expected one of ${[...KEYS].join(", ")})`);
  }
  const path = routePath(given.path, "/openapi.json", "path");
  const docsPath = routePath(given.docsPath, "/docs", "docsPath");
  if (path === docsPath) throw new TypeError("openapi.path and openapi.docsPath must differ");
  return {
    title: optionalString(given.title, "title"),
    version: optionalString(given.version, "version"),
    description: optionalString(given.description, "description"),
    document: documentOption(given.document),
    servers: serversOption(given.servers),
    path,
    docsPath,
    docsUi: docsUiOption(given.docsUi),
  };
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw new TypeError(`openapi.${name} must be a string`);
  return value;
}

const PARAMETER_CHARACTERS = [":", "*", "?", "#", "%"];

function routePath(value: unknown, fallback: string, name: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== "string" || !value.startsWith("/"))
    throw new TypeError(`openapi.${name} must be a path starting with '/'`);
  // These are fixed routes: a parameter or wildcard segment would swallow other routes.
  if (PARAMETER_CHARACTERS.some((character) => value.includes(character)))
    throw new TypeError(`openapi.${name} '${value}' must be a plain path (no ':', '*', '?', '#', '%')`);
  return normalisePattern(value);
}

function serversOption(value: unknown): { url: string; description?: string }[] | undefined {
  if (value === undefined) return undefined;
  const valid =
    Array.isArray(value) &&
    value.every(
      (server) =>
        typeof server === "object" &&
        server !== null &&
        typeof (server as { url?: unknown }).url === "string" &&
        ["undefined", "string"].includes(typeof (server as { description?: unknown }).description),
    );
  if (!valid) throw new TypeError("openapi.servers must be an array of { url, description? }");
  return value as { url: string; description?: string }[];
}

function docsUiOption(value: unknown): "swagger" | "scalar" {
  if (value === undefined || value === "swagger" || value === "scalar") return value ?? "swagger";
  throw new TypeError(`openapi.docsUi must be "swagger" or "scalar", got ${JSON.stringify(value)}`);
}

function documentOption(value: unknown): Record<string, unknown> | string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "object" && value !== null && !Array.isArray(value))
    return value as Record<string, unknown>;
  throw new TypeError("openapi.document must be an OpenAPI document object or the path of a JSON file");
}

/**
 * Whether OpenAPI is off for this process: the app option, or
 * `WEBFW_DISABLE_OPENAPI=1` (what `--disable-openapi` amounts to).
 */
export function openApiDisabledByEnv(env: Record<string, string | undefined> = process.env): boolean {
  const value = env.WEBFW_DISABLE_OPENAPI?.trim().toLowerCase();
  return value === "1" || value === "true" || value === "yes";
}
