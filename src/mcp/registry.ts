/**
 * What the application registered: tools, resources and prompts, already
 * normalised into the shapes the protocol lists, plus how to call each one.
 */

import type { JsonSchema } from "../args/json-schema.ts";
import { type ArgShape, type ArgSpec, shapeSchema } from "../args/t.ts";
import { UriTemplate } from "./uri-template.ts";

/** A prompt message as a function may return it; `content` may be a plain string. */
export interface PromptMessageInput {
  role: "user" | "assistant";
  content: string | { type: string; [key: string]: unknown };
}

/** A prompt argument as listed by `prompts/list`. */
export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

export type Awaitable<T> = T | Promise<T>;

export interface ToolEntry {
  name: string;
  description: string | undefined;
  inputSchema: JsonSchema;
  args: ArgShape | undefined;
  fn: (input: Record<string, unknown>) => Awaitable<unknown>;
}

export interface ResourceEntry {
  name: string;
  description: string | undefined;
  mimeType: string | undefined;
  template: UriTemplate;
  fn: (params: Record<string, string>) => Awaitable<unknown>;
}

export interface PromptEntry {
  name: string;
  description: string | undefined;
  arguments: PromptArgument[];
  args: ArgShape | undefined;
  fn: (input: Record<string, unknown>) => Awaitable<unknown>;
}

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
    const argument: PromptArgument = { name, required: !spec.isOptional };
    if (spec.description) argument.description = spec.description;
    return argument;
  });
}

export class Registry {
  readonly tools = new Map<string, ToolEntry>();
  readonly prompts = new Map<string, PromptEntry>();
  /** Resources in registration order; concrete URIs and templates together, told apart by `template.isTemplate`. */
  readonly resources: ResourceEntry[] = [];

  get size(): number {
    return this.tools.size + this.prompts.size + this.resources.length;
  }

  addTool(
    fn: ToolEntry["fn"],
    options: { name?: string; description?: string; inputSchema?: JsonSchema; args?: ArgShape },
  ): void {
    const name = nameOf("tool", options.name, fn);
    if (this.tools.has(name)) throw new TypeError(`MCP tool '${name}' is already registered`);
    const explicit = options.inputSchema;
    if (explicit !== undefined && explicit.type !== undefined && explicit.type !== "object") {
      throw new TypeError(`MCP tool '${name}': inputSchema must describe an object`);
    }
    const inputSchema: JsonSchema = explicit
      ? { ...explicit, type: "object" }
      : shapeSchema(options.args ?? {});
    this.tools.set(name, { name, description: options.description, inputSchema, args: options.args, fn });
  }

  addResource(
    uriTemplate: string,
    fn: ResourceEntry["fn"],
    options: { name?: string; description?: string; mimeType?: string },
  ): void {
    if (typeof uriTemplate !== "string" || uriTemplate === "") {
      throw new TypeError("MCP resource needs a URI (template)");
    }
    if (this.resources.some((entry) => entry.template.template === uriTemplate)) {
      throw new TypeError(`MCP resource '${uriTemplate}' is already registered`);
    }
    const template = new UriTemplate(uriTemplate);
    // A resource has a URI to identify it, so the name may fall back to it.
    const name = options.name ?? (fn.name || uriTemplate);
    this.resources.push({ name, description: options.description, mimeType: options.mimeType, template, fn });
  }

  addPrompt(
    fn: PromptEntry["fn"],
    options: { name?: string; description?: string; arguments?: PromptArgument[]; args?: ArgShape },
  ): void {
    const name = nameOf("prompt", options.name, fn);
    if (this.prompts.has(name)) throw new TypeError(`MCP prompt '${name}' is already registered`);
    const listed = options.arguments ?? (options.args ? promptArguments(options.args) : []);
    this.prompts.set(name, {
      name,
      description: options.description,
      arguments: listed,
      args: options.args,
      fn,
    });
  }

  /** The resource a URI names: an exact concrete URI first, then the first template that matches. */
  findResource(uri: string): { entry: ResourceEntry; params: Record<string, string> } | undefined {
    for (const entry of this.resources) {
      if (!entry.template.isTemplate && entry.template.template === uri) return { entry, params: {} };
    }
    for (const entry of this.resources) {
      if (!entry.template.isTemplate) continue;
      const params = entry.template.match(uri);
      if (params !== undefined) return { entry, params };
    }
    return undefined;
  }
}
