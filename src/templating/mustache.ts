import type Mustache from "mustache";
import { nodeFs, nodePath } from "../builtins.ts";
import { requireDirectory } from "../embed/directories.ts";
import { realPathSync as realpathSync } from "../embed/real-path.ts";
import { TemplateInterface } from "./template-interface.ts";

export interface MustacheTemplateOptions {
  /** Encoding of the template files. Default `utf-8`. */
  encoding?: BufferEncoding;
  /** Allow templates that are symlinks to files outside the directory. Default false. */
  followLinks?: boolean;
  /** Appended to a name that does not exist as given (`index` → `index.mustache`). Default `.mustache`. */
  extension?: string;
  /**
   * Check each template's modification time on every render and reload it
   * when it changed (what `--dev` wants). Default true; false loads each
   * template once, for production.
   */
  reload?: boolean;
}

interface Loaded {
  text: string;
  mtimeMs: number;
  size: number;
}

/**
 * Mustache templates from one directory (spec `Template(directory, encoding,
 * followlinks)`). `{{x}}` is HTML-escaped, `{{{x}}}` is not; `{{> header}}`
 * loads the partial `header` from the same directory (subdirectories allowed:
 * `{{> parts/nav}}`). A name that leads outside the directory, or a symlink
 * leading out without `followLinks`, throws an Error.
 */
let loadedMustache: typeof Mustache | undefined;
/** The mustache package loads with the first template object: `webfw` exports this class, most apps never make one. */
function mustache(): typeof Mustache {
  const module = require("mustache") as typeof Mustache & { default?: typeof Mustache };
  loadedMustache ??= module.default ?? module;
  return loadedMustache;
}

export class MustacheTemplate extends TemplateInterface {
  readonly directory: string;
  private readonly encoding: BufferEncoding;
  private readonly followLinks: boolean;
  private readonly extension: string;
  private readonly reload: boolean;
  private readonly cache = new Map<string, Loaded>();
  private readonly resolved = new Map<string, string>();
  /** A writer of our own: its parse cache is dropped when a template changes, the global one never is. */
  private readonly writer: Mustache.Writer;
  private realDirectory: string | null = null;

  constructor(directory: string, options: MustacheTemplateOptions = {}) {
    super();
    this.directory = nodePath().resolve(directory);
    requireDirectory("MustacheTemplate", this.directory);
    this.writer = new (mustache().Writer)();
    this.encoding = options.encoding ?? "utf-8";
    this.followLinks = options.followLinks ?? false;
    this.extension = options.extension ?? ".mustache";
    this.reload = options.reload ?? true;
  }

  renderTemplate(name: string, context: Record<string, unknown> = {}): string {
    const template = this.load(name);
    return this.writer.render(template, context, (partial: string) => this.loadPartial(partial));
  }

  /** The Mustache spec renders a missing partial as nothing; a name leading outside still throws. */
  private loadPartial(name: string): string {
    try {
      return this.load(name);
    } catch (error) {
      if (error instanceof TemplateNotFoundError) return "";
      throw error;
    }
  }

  /** The text of a template or partial, from the cache when its file did not change. */
  private load(name: string): string {
    const path = this.resolvedPath(name);
    const cached = this.cache.get(path);
    if (cached !== undefined && !this.reload) return cached.text;
    let info: { mtimeMs: number; size: number };
    try {
      info = nodeFs().statSync(path);
    } catch {
      this.cache.delete(path);
      this.resolved.delete(name);
      throw new TemplateNotFoundError(name);
    }
    if (cached !== undefined && cached.mtimeMs === info.mtimeMs && cached.size === info.size)
      return cached.text;
    const text = nodeFs().readFileSync(path, this.encoding);
    if (cached !== undefined) this.writer.clearCache();
    this.cache.set(path, { text, mtimeMs: info.mtimeMs, size: info.size });
    return text;
  }

  /** Maps a template name to a real file path inside the directory, or throws. */
  private resolvedPath(name: string): string {
    const known = this.resolved.get(name);
    if (known !== undefined) return known;
    if (name === "" || name.includes("\0") || nodePath().isAbsolute(name) || name.includes("\\")) {
      throw new Error(`template name refused: ${JSON.stringify(name)}`);
    }
    this.realDirectory ??= realpathOrThrow(this.directory, `template directory not found: ${this.directory}`);
    for (const candidate of [name, name + this.extension]) {
      const lexical = nodePath().resolve(this.directory, candidate);
      const rel = nodePath().relative(this.directory, lexical);
      if (rel === "" || rel.startsWith(`..${nodePath().sep}`) || rel === ".." || nodePath().isAbsolute(rel)) {
        throw new Error(`template outside the template directory refused: ${name}`);
      }
      let real: string;
      try {
        real = realpathSync(lexical);
        if (!nodeFs().statSync(real).isFile()) continue;
      } catch {
        continue;
      }
      if (!this.followLinks && !isInside(real, this.realDirectory)) {
        throw new Error(`template outside the template directory refused (symlink): ${name}`);
      }
      this.resolved.set(name, real);
      return real;
    }
    throw new TemplateNotFoundError(name, `${nodePath().join(this.directory, name)}[${this.extension}]`);
  }
}

/** The named template does not exist in the directory. */
export class TemplateNotFoundError extends Error {
  constructor(name: string, where?: string) {
    super(`template not found: ${name}${where ? ` (looked for ${where})` : ""}`);
    this.name = "TemplateNotFoundError";
  }
}

function realpathOrThrow(path: string, message: string): string {
  try {
    return realpathSync(path);
  } catch {
    throw new Error(message);
  }
}

function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(nodePath().sep) ? root : root + nodePath().sep);
}
