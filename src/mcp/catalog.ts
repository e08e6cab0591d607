/**
 * What one build's MCP endpoint serves: the app's registrations (`app.mcp.tool`, …, shared by
 * every build and changeable at run time) followed by the build's own route tools (bound to this
 * build's dispatchers, seen by no other build). docs/mcp.md, "The app's declarations and each
 * build's endpoint". The merged lists are made again only after either side changed.
 */
import {
  findResourceIn,
  type ListKind,
  type McpCatalog,
  type PromptEntry,
  type Registry,
  type ResourceEntry,
  type ToolEntry,
} from "./registry.ts";

interface Merged {
  tools: Map<string, ToolEntry>;
  prompts: Map<string, PromptEntry>;
  resources: ResourceEntry[];
}

export class Catalog implements McpCatalog {
  private merged: Merged | null = null;
  private seen = { declared: -1, own: -1 };

  constructor(
    /** The app's registrations (`app.mcp`). */
    private readonly declared: Registry,
    /** This build's route tools and their UI resources. */
    private readonly own: Registry,
  ) {}

  get tools(): ReadonlyMap<string, ToolEntry> {
    return this.current().tools;
  }

  get prompts(): ReadonlyMap<string, PromptEntry> {
    return this.current().prompts;
  }

  get resources(): readonly ResourceEntry[] {
    return this.current().resources;
  }

  findResource(uri: string): { entry: ResourceEntry; params: Record<string, string> } | undefined {
    return findResourceIn(this.current().resources, uri);
  }

  onChange(listener: (kind: ListKind) => void): () => void {
    const offDeclared = this.declared.onChange(listener);
    const offOwn = this.own.onChange(listener);
    return () => {
      offDeclared();
      offOwn();
    };
  }

  private current(): Merged {
    const { declared, own } = this;
    if (this.merged !== null && this.seen.declared === declared.version && this.seen.own === own.version) {
      return this.merged;
    }
    this.merged = {
      tools: new Map([...declared.tools, ...own.tools]),
      prompts: new Map([...declared.prompts, ...own.prompts]),
      resources: [...declared.resources, ...own.resources],
    };
    this.seen = { declared: declared.version, own: own.version };
    return this.merged;
  }
}
