/**
 * A template engine as the framework sees it (spec `TemplateInterface`):
 * a name and a context in, the rendered string out. Subclass it to plug in
 * another engine; a handler returns the string, or `html(string)` to send it
 * as `text/html`.
 */
export abstract class TemplateInterface {
  abstract renderTemplate(name: string, context?: Record<string, unknown>): string;
}
