/**
 * `webfw/mcp`: the Model Context Protocol endpoint's registrations and their types (docs/mcp.md).
 * A list of re-exports only: the modules behind it change without this file changing shape.
 */
export type {
  McpUi,
  McpUiCsp,
  McpUiPermission,
  McpUiPermissions,
  McpUiSettings,
  McpUiVisibility,
} from "../mcp/apps/options.ts";
export type {
  CompleteFn,
  Mcp,
  McpAuthOptions,
  McpConfig,
  McpContext,
  McpIcon,
  PromptFn,
  PromptOptions,
  ResourceFn,
  ResourceOptions,
  RouteFilter,
  RouteInfo,
  RouteMcpOption,
  RouteToolOptions,
  ToolAnnotations,
  ToolFn,
  ToolOptions,
  ToolReturn,
} from "../mcp/index.ts";
export type {
  ElicitInput,
  PromptArgument,
  PromptMessageInput,
  ResourceAnnotations,
  SampleInput,
} from "../mcp/types.ts";
export type { TemplateNames } from "../mcp/uri-template.ts";
