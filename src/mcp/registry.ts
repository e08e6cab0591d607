/**
 * What the application registered: tools, resources and prompts, normalised
 * into the shapes the protocol lists, plus how to call each one. Knows nothing
 * about sessions or the wire; the engine (src/mcp/engine.ts) reads it, and is
 * told through `onChange` when something is added or removed at run time
 * (list-changed notifications).
 */

import type { JsonSchema } from "../args/json-schema.ts";
import type { ArgShape, ArgSpec } from "../args/t.ts";
import type * as UiAttach from "./apps/attach.ts";
import type { McpUi, McpUiToolOptions, McpUiVisibility } from "./apps/options.ts";
import { mcpInputSchema } from "./tool-schema.ts";
import type {
  Awaitable,
  CompleteFn,
  McpIcon,
  PromptArgument,
  ResourceAnnotations,
  ToolAnnotations,
} from "./types.ts";
import { type TemplateNames, UriTemplate } from "./uri-template.ts";

/** A context-taking function as stored: the facade's typed signatures are erased here. */
export type StoredFn<I> = (input: I, ctx: never) => Awaitable<unknown>;

export interface ToolEntry {
  name: string;
  title: string | undefined;
  description: string | undefined;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema | undefined;
  annotations: ToolAnnotations | undefined;
  icons: McpIcon[] | undefined;
  meta: Record<string, unknown> | undefined;
  /**
   * With a `ui` or `visibility` (MCP Apps): the `_meta` listed to clients that did not negotiate
   * the extension (no `ui`), and whether the tool is for the UI only (not listed to them at all).
   */
  plainMeta: Record<string, unknown> | undefined;
  appOnly: boolean;
  /** The URI of the tool's own UI resource, removed with the tool. */
  uiResource: string | undefined;
  args: ArgShape | undefined;
  fn: StoredFn<Record<string, unknown>>;
}

export interface ResourceEntry {
  name: string;
  title: string | undefined;
  description: string | undefined;
  mimeType: string | undefined;
  annotations: ResourceAnnotations | undefined;
  icons: McpIcon[] | undefined;
  size: number | undefined;
  /** `_meta` of the `resources/list` entry. */
  meta: Record<string, unknown> | undefined;
  template: UriTemplate;
  /** Completion of a placeholder's value (`completion/complete` with a `ref/resource`). */
  complete: Partial<Record<string, CompleteFn>> | undefined;
  fn: StoredFn<Record<string, string>>;
}

export interface PromptEntry {
  name: string;
  title: string | undefined;
  description: string | undefined;
  icons: McpIcon[] | undefined;
  arguments: PromptArgument[];
  args: ArgShape | undefined;
  /** Completion of an argument's value (`completion/complete` with a `ref/prompt`). */
  complete: Partial<Record<string, CompleteFn>> | undefined;
  fn: StoredFn<Record<string, unknown>>;
}

export type ListKind = "tools" | "resources" | "prompts";

/** A function's own name, or the explicit one; a registration without either is a programming error. */
function nameOf(kind: string, explicit: string | undefined, fn: { name: string }): string {
  const name = explicit ?? fn.name;
  if (typeof name !== "string" || name === "") {
    throw new TypeError(`MCP ${kind} needs a name: pass { name } or register a named function`);
  }
  return name;
}

/** Prompt arguments derived from `args` specs: required unless optional or defaulted. */
function promptArguments(shape: ArgShape): PromptArgument[] {
  return Object.entries(shape).map(([name, spec]: [string, ArgSpec<unknown>]) => {
    const argument: PromptArgument = { name, required: !spec.isOptional || isBareList(spec) };
    if (spec.description) argument.description = spec.description;
    return argument;
  });
}

/** A `t.list` without a default: optional for routes (absent is `[]`), required for MCP like any other argument. */
export function isBareList(spec: ArgSpec<unknown>): boolean {
  return spec.kind === "list" && !spec.hasDefault;
}

function checkObjectSchema(schema: JsonSchema | undefined, what: string): void {
  if (schema !== undefined && schema.type !== undefined && schema.type !== "object") {
    throw new TypeError(`${what} must describe an object`);
  }
}

export interface ToolOptions<S extends ArgShape> {
  name?: string;
  /** Human-readable name for clients' UIs (the `name` stays the identifier). */
  title?: string;
  description?: string;
  /** Explicit JSON Schema (an object schema); wins over the one generated from `args`. */
  inputSchema?: JsonSchema;
  /** JSON Schema of the tool's structured result: a returned plain object becomes `structuredContent`. */
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  icons?: McpIcon[];
  _meta?: Record<string, unknown>;
  /** Typed arguments (`t`): convert and validate the call's arguments and generate `inputSchema`. */
  args?: S;
  /**
   * The tool's UI (MCP Apps, docs/mcp-apps.md): an HTML string, or `{ html | template | file |
   * bundle }` with `uri`, `csp`, `permissions`, `domain`, `prefersBorder`, `preferredSize`.
   * Registers a `ui://` resource (`text/html;profile=mcp-app`) and names it in `_meta.ui`.
   */
  ui?: McpUi;
  /** Who may see and call the tool (MCP Apps): `["model", "app"]` (default), `["app"]`: the UI only. */
  visibility?: McpUiVisibility[];
}

export interface ResourceOptions<U extends string = string> {
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: ResourceAnnotations;
  icons?: McpIcon[];
  /** Size in bytes, when known (clients show it). */
  size?: number;
  /** `_meta` of the `resources/list` entry. */
  _meta?: Record<string, unknown>;
  /** Completion of placeholder values (`completion/complete`), by placeholder name. */
  complete?: Partial<Record<TemplateNames<U>, CompleteFn>>;
}

export interface PromptOptions<S extends ArgShape> {
  name?: string;
  title?: string;
  description?: string;
  icons?: McpIcon[];
  /** Explicit argument list; wins over the one generated from `args`. */
  arguments?: PromptArgument[];
  /** Typed arguments (`t`): convert the (string) prompt arguments and generate `arguments`. */
  args?: S;
  /** Completion of argument values (`completion/complete`), by argument name. */
  complete?: Partial<Record<keyof S & string, CompleteFn>> | Record<string, CompleteFn>;
}

/**
 * What the engine reads: the tools, resources and prompts one build serves. The app's `Registry`
 * is one; a build's `Catalog` (src/mcp/catalog.ts) adds the build's route tools to it.
 */
export interface McpCatalog {
  readonly tools: ReadonlyMap<string, ToolEntry>;
  readonly prompts: ReadonlyMap<string, PromptEntry>;
  readonly resources: readonly ResourceEntry[];
  findResource(uri: string): { entry: ResourceEntry; params: Record<string, string> } | undefined;
  /** Called after every addition or removal (the engine sends `notifications/<kind>/list_changed`). */
  onChange(listener: (kind: ListKind) => void): () => void;
}

/** The resource a URI names in `resources`: an exact concrete URI first, then the first template that matches. */
export function findResourceIn(
  resources: readonly ResourceEntry[],
  uri: string,
): { entry: ResourceEntry; params: Record<string, string> } | undefined {
  for (const entry of resources) {
    if (!entry.template.isTemplate && entry.template.template === uri) return { entry, params: {} };
  }
  for (const entry of resources) {
    if (!entry.template.isTemplate) continue;
    const params = entry.template.match(uri);
    if (params !== undefined) return { entry, params };
  }
  return undefined;
}

export class Registry implements McpCatalog {
  readonly tools = new Map<string, ToolEntry>();
  readonly prompts = new Map<string, PromptEntry>();
  /** Resources in registration order; concrete URIs and templates together, told apart by `template.isTemplate`. */
  readonly resources: ResourceEntry[] = [];
  private readonly listeners = new Set<(kind: ListKind) => void>();
  /** Counts the changes: a view over this registry (src/mcp/catalog.ts) knows when to read it again. */
  private changes = 0;

  constructor(
    /** Tool names held elsewhere (a running build's route tools): registering one is refused. */
    private readonly takenElsewhere: (name: string) => boolean = () => false,
  ) {}

  get version(): number {
    return this.changes;
  }

  get size(): number {
    return this.tools.size + this.prompts.size + this.resources.length;
  }

  /** Called after every addition or removal (the engine sends `notifications/<kind>/list_changed`). */
  onChange(listener: (kind: ListKind) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(kind: ListKind): void {
    this.changes++;
    for (const listener of this.listeners) listener(kind);
  }

  addTool(fn: ToolEntry["fn"], options: ToolOptions<ArgShape>): ToolEntry {
    const name = nameOf("tool", options.name, fn);
    if (this.tools.has(name) || this.takenElsewhere(name)) {
      throw new TypeError(`MCP tool '${name}' is already registered`);
    }
    checkObjectSchema(options.inputSchema, `MCP tool '${name}': inputSchema`);
    checkObjectSchema(options.outputSchema, `MCP tool '${name}': outputSchema`);
    const inputSchema: JsonSchema = options.inputSchema
      ? { ...options.inputSchema, type: "object" }
      : mcpInputSchema(options.args ?? {});
    const ui = this.planUi(name, options);
    const entry: ToolEntry = {
      name,
      title: options.title,
      description: options.description,
      inputSchema,
      outputSchema: options.outputSchema,
      annotations: options.annotations,
      icons: options.icons,
      meta: ui?.meta ?? options._meta,
      plainMeta: options._meta,
      appOnly: ui?.appOnly ?? false,
      uiResource: ui?.resource?.uri,
      args: options.args,
      fn,
    };
    this.tools.set(name, entry);
    this.changed("tools");
    const resource = ui?.resource;
    if (resource !== undefined) {
      this.addResource(resource.uri, () => resource.read(), {
        name: resource.name,
        description: resource.description,
        mimeType: resource.mimeType,
        _meta: resource.meta,
      });
    }
    return entry;
  }

  /**
   * A tool's MCP Apps options, checked (a bad one throws before anything is registered). The
   * module is loaded only for a tool that has them: an app without UIs never loads it.
   */
  private planUi(name: string, options: ToolOptions<ArgShape>): UiAttach.UiPlan | undefined {
    const uiOptions: McpUiToolOptions = options;
    if (uiOptions.ui === undefined && uiOptions.visibility === undefined) return undefined;
    const plan = (require("./apps/attach.ts") as typeof UiAttach).planUi(name, options._meta, uiOptions);
    const uri = plan.resource?.uri;
    if (uri !== undefined && this.resources.some((entry) => entry.template.template === uri)) {
      throw new TypeError(`MCP tool '${name}': its UI resource '${uri}' is already registered`);
    }
    return plan;
  }

  addResource(uriTemplate: string, fn: ResourceEntry["fn"], options: ResourceOptions): ResourceEntry {
    if (typeof uriTemplate !== "string" || uriTemplate === "") {
      throw new TypeError("MCP resource needs a URI (template)");
    }
    if (this.resources.some((entry) => entry.template.template === uriTemplate)) {
      throw new TypeError(`MCP resource '${uriTemplate}' is already registered`);
    }
    const template = new UriTemplate(uriTemplate);
    for (const placeholder of Object.keys(options.complete ?? {})) {
      if (!template.names.includes(placeholder)) {
        throw new TypeError(`MCP resource '${uriTemplate}': complete.${placeholder} names no placeholder`);
      }
    }
    // A resource has a URI to identify it, so the name may fall back to it.
    const entry: ResourceEntry = {
      name: options.name ?? (fn.name || uriTemplate),
      title: options.title,
      description: options.description,
      mimeType: options.mimeType,
      annotations: options.annotations,
      icons: options.icons,
      size: options.size,
      meta: options._meta,
      template,
      complete: options.complete,
      fn,
    };
    this.resources.push(entry);
    this.changed("resources");
    return entry;
  }

  addPrompt(fn: PromptEntry["fn"], options: PromptOptions<ArgShape>): PromptEntry {
    const name = nameOf("prompt", options.name, fn);
    if (this.prompts.has(name)) throw new TypeError(`MCP prompt '${name}' is already registered`);
    const listed = options.arguments ?? (options.args ? promptArguments(options.args) : []);
    for (const argument of Object.keys(options.complete ?? {})) {
      if (!listed.some((item) => item.name === argument)) {
        throw new TypeError(`MCP prompt '${name}': complete.${argument} names no argument`);
      }
    }
    const entry: PromptEntry = {
      name,
      title: options.title,
      description: options.description,
      icons: options.icons,
      arguments: listed,
      args: options.args,
      complete: options.complete,
      fn,
    };
    this.prompts.set(name, entry);
    this.changed("prompts");
    return entry;
  }

  removeTool(name: string): boolean {
    const uiResource = this.tools.get(name)?.uiResource;
    const removed = this.tools.delete(name);
    if (removed) this.changed("tools");
    // A tool's own UI goes with it (a rebuild registers route tools again, with their UIs).
    if (uiResource !== undefined) this.removeResource(uiResource);
    return removed;
  }

  removePrompt(name: string): boolean {
    const removed = this.prompts.delete(name);
    if (removed) this.changed("prompts");
    return removed;
  }

  removeResource(uriTemplate: string): boolean {
    const index = this.resources.findIndex((entry) => entry.template.template === uriTemplate);
    if (index === -1) return false;
    this.resources.splice(index, 1);
    this.changed("resources");
    return true;
  }

  /** The resource a URI names: an exact concrete URI first, then the first template that matches. */
  findResource(uri: string): { entry: ResourceEntry; params: Record<string, string> } | undefined {
    return findResourceIn(this.resources, uri);
  }
}
