/**
 * The small subset of RFC 6570 URI templates that MCP resources use:
 * `{name}` matches one or more characters that decode to one path segment
 * (no `/`, `\` or NUL after percent-decoding, not `.` or `..`),
 * `{+name}` matches one or more of any character, slashes included (kept as is,
 * like RFC 6570 reserved expansion). Matching is a single left-to-right scan
 * (no regular expressions, no backtracking) so a long hostile URI costs linear time.
 */

type Part = { literal: string } | { name: string; reserved: boolean };

/** The placeholder names of a template literal type: `"u://{id}/{+rest}"` gives `"id" | "rest"`. */
export type TemplateNames<U extends string> = U extends `${string}{${infer P}}${infer Rest}`
  ? (P extends `+${infer N}` ? N : P) | TemplateNames<Rest>
  : never;

/** The object a resource function receives: one string per placeholder. */
export type TemplateParams<U extends string> = string extends U
  ? Record<string, string>
  : { [K in TemplateNames<U>]: string };

const NAME = /^[A-Za-z_][A-Za-z0-9_.]*$/;

export class UriTemplate {
  readonly template: string;
  readonly names: readonly string[];
  private readonly parts: readonly Part[];

  constructor(template: string) {
    this.template = template;
    this.parts = UriTemplate.compile(template);
    this.names = this.parts.flatMap((part) => ("name" in part ? [part.name] : []));
  }

  /** True when the template has placeholders (it belongs in `resources/templates/list`). */
  get isTemplate(): boolean {
    return this.names.length > 0;
  }

  private static compile(template: string): Part[] {
    const parts: Part[] = [];
    let position = 0;
    while (position < template.length) {
      const open = template.indexOf("{", position);
      if (open === -1) {
        parts.push({ literal: template.slice(position) });
        break;
      }
      if (open > position) parts.push({ literal: template.slice(position, open) });
      const close = template.indexOf("}", open);
      if (close === -1) throw new TypeError(`URI template '${template}': unclosed '{'`);
      const expression = template.slice(open + 1, close);
      const reserved = expression.startsWith("+");
      const name = reserved ? expression.slice(1) : expression;
      if (!NAME.test(name)) {
        throw new TypeError(
          `URI template '${template}': unsupported placeholder '{${expression}}' (use {name} or {+name})`,
        );
      }
      const previous = parts[parts.length - 1];
      if (previous !== undefined && "name" in previous) {
        // Two placeholders in a row have no boundary between them: the split would be arbitrary.
        throw new TypeError(`URI template '${template}': placeholders must be separated by literal text`);
      }
      if (parts.some((part) => "name" in part && part.name === name)) {
        throw new TypeError(`URI template '${template}': placeholder '${name}' appears twice`);
      }
      parts.push({ name, reserved });
      position = close + 1;
    }
    if (parts.some((part) => "literal" in part && part.literal.includes("}"))) {
      throw new TypeError(`URI template '${template}': unmatched '}'`);
    }
    return parts;
  }

  /** The placeholder values when `uri` fits this template, else `undefined`. */
  match(uri: string): Record<string, string> | undefined {
    const params: Record<string, string> = {};
    let position = 0;
    for (let index = 0; index < this.parts.length; index++) {
      const part = this.parts[index] as Part;
      if ("literal" in part) {
        if (!uri.startsWith(part.literal, position)) return undefined;
        position += part.literal.length;
        continue;
      }
      // The compiler guarantees a literal (or the end) follows every placeholder.
      const next = this.parts[index + 1] as { literal: string } | undefined;
      const end = next === undefined ? uri.length : uri.indexOf(next.literal, position);
      if (end === -1 || end === position) return undefined;
      const raw = uri.slice(position, end);
      const value = part.reserved ? raw : decode(raw);
      // Checked AFTER decoding (issue #13, finding 7): `..%2F..%2Fetc%2Fpasswd` must not become
      // the value `../../etc/passwd`. A `{name}` value is one segment: no `/` or `\`, not `.`/`..`.
      if (value === undefined || (!part.reserved && !isSegment(value))) return undefined;
      params[part.name] = value;
      position = end;
    }
    return position === uri.length ? params : undefined;
  }
}

function isSegment(value: string): boolean {
  return (
    value !== "." && value !== ".." && !value.includes("/") && !value.includes("\\") && !value.includes("\0")
  );
}

function decode(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}
