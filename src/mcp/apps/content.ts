/**
 * The HTML of a UI resource, from each kind of source (docs/mcp-apps.md):
 * an HTML string as given, a template wrapped in a document that renders it
 * in the browser, a file read on each `resources/read`, an HTML entry point
 * bundled by Bun into one self-contained document.
 */
// The browser build of the `mustache` package (a webfw dependency), as text: inlined into template
// documents. A text import, so that `bun build --compile` embeds it (a binary has no node_modules).
import mustacheBrowserSource from "mustache/mustache.js" with { type: "text" };
import { nodeFs, nodePath } from "../../builtins.ts";
import type { McpUiSettings, McpUiSource } from "./options.ts";
import { viewRuntime } from "./view-runtime.ts";

/** Makes the UI's HTML, each time the resource is read (a loader caches what does not change). */
export type HtmlLoader = () => Promise<string>;

/** A path option as an absolute path: a `file:` URL, an absolute path, or one relative to the working directory. */
export function resolvePath(path: string | URL): string {
  if (path instanceof URL) return Bun.fileURLToPath(path);
  return nodePath().resolve(path);
}

/** Text safe inside a `<script>` element: no `</script`, no `<!--`. */
function scriptSafe(json: string): string {
  return json.replace(/</g, "\\u003c");
}

/** The document of a template UI: the template (as data), Mustache and the View runtime, all inline. */
export function templateDocument(template: string, toolName: string): string {
  const appInfo = { name: `webfw view: ${toolName}`, version: "1.0.0" };
  return [
    "<!doctype html>",
    '<html><head><meta charset="utf-8"><meta name="color-scheme" content="light dark"></head>',
    '<body><div id="webfw-view"></div>',
    `<script>${mustacheBrowserSource}</script>`,
    `<script>(${String(viewRuntime)})(${scriptSafe(JSON.stringify(template))}, ${scriptSafe(JSON.stringify(appInfo))}, window.Mustache);</script>`,
    "</body></html>",
  ].join("\n");
}

/** Adds the preferred size to a document: a style on `<html>`, first thing in its head. */
export function withPreferredSize(html: string, size: McpUiSettings["preferredSize"]): string {
  if (size === undefined) return html;
  const rules: string[] = [];
  if (size.height !== undefined) rules.push(`min-height:${size.height}px`);
  if (size.width !== undefined) rules.push(`width:${size.width}px`);
  if (rules.length === 0) return html;
  const style = `<style data-webfw-preferred-size>html{${rules.join(";")}}</style>`;
  const head = /<head(\s[^>]*)?>/i.exec(html);
  if (head)
    return html.slice(0, head.index + head[0].length) + style + html.slice(head.index + head[0].length);
  const root = /<html(\s[^>]*)?>/i.exec(html);
  if (root)
    return html.slice(0, root.index + root[0].length) + style + html.slice(root.index + root[0].length);
  return style + html;
}

/** Bundles an HTML entry point into one document, scripts and styles inlined (`bun build --compile --target=browser`). */
export async function bundleHtml(entry: string): Promise<string> {
  let built: Awaited<ReturnType<typeof Bun.build>>;
  try {
    built = await Bun.build({ entrypoints: [entry], compile: true, target: "browser", minify: true });
  } catch (error) {
    // Bun throws an AggregateError of build messages ("Bundle failed"): name the real causes.
    const causes =
      error instanceof AggregateError ? error.errors.map((item: unknown) => String(item)) : [String(error)];
    throw new Error(`bundling ${entry} failed: ${causes.join("; ")}`);
  }
  const messages = built.logs.map((log) => log.message).join("; ");
  if (!built.success) throw new Error(`bundling ${entry} failed${messages ? `: ${messages}` : ""}`);
  const html = built.outputs.find((output) => output.path.endsWith(".html"));
  if (html === undefined || built.outputs.length !== 1) {
    throw new Error(`bundling ${entry} did not give one HTML file (${built.outputs.length} outputs)`);
  }
  return html.text();
}

/** The loader of one UI source; a file that does not exist is refused now, at registration. */
export function htmlLoader(source: McpUiSource, toolName: string, where: string): HtmlLoader {
  if ("html" in source) {
    const html = source.html;
    return () => Promise.resolve(html);
  }
  if ("template" in source) {
    let document: string | undefined;
    const template = source.template;
    return () => {
      document ??= templateDocument(template, toolName);
      return Promise.resolve(document);
    };
  }
  const path = resolvePath("file" in source ? source.file : source.bundle);
  if (!nodeFs().existsSync(path)) throw new TypeError(`${where}: ${path} does not exist`);
  if ("file" in source) return () => Bun.file(path).text();
  let built: Promise<string> | null = null;
  return () => {
    built ??= bundleHtml(path).catch((error: unknown) => {
      built = null; // a failed build is tried again on the next read (the file may have been fixed)
      throw error;
    });
    return built;
  };
}
