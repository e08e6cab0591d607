/**
 * Tool names for routes. The MCP spec (2025-11-25, "Tool names") asks for 1–128
 * characters from `A-Z a-z 0-9 _ - .`, unique within the server. The default
 * name is made from the method and the path so it stays the same from one
 * start to the next (a client or a prompt may have it written down):
 * `GET /users/:id` → `get_users_by_id`, `GET /` → `get_root`.
 */
const NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export function checkToolName(name: unknown, where: string): string {
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new Error(
      `${where}: MCP tool name '${String(name)}' is invalid (1–128 characters from A-Z a-z 0-9 _ - .)`,
    );
  }
  return name;
}

export function defaultToolName(method: string, path: string): string {
  const words: string[] = [method.toLowerCase()];
  for (const segment of path.split("/")) {
    if (segment === "") continue;
    if (segment.startsWith(":") || segment.startsWith("*")) words.push("by", segment.slice(1));
    else {
      // Characters outside the allowed set become `_`; `-` and `.` are allowed and kept (no new clashes).
      const word = segment.replace(/[^A-Za-z0-9_.-]+/g, "_").replace(/^_+|_+$/g, "");
      if (word !== "") words.push(word);
    }
  }
  if (words.length === 1) words.push("root");
  return words.join("_");
}

/**
 * Checks a set of names for clashes; the error names both owners, so the fix
 * (a `name` option on one of them) is obvious.
 */
export class NameBook {
  private readonly owners = new Map<string, string>();

  constructor(taken: Iterable<[name: string, owner: string]> = []) {
    for (const [name, owner] of taken) this.owners.set(name, owner);
  }

  claim(name: string, owner: string): void {
    const previous = this.owners.get(name);
    if (previous !== undefined) {
      throw new Error(
        `MCP tool name '${name}' of ${owner} is already used by ${previous}; give one of them mcp: { name }`,
      );
    }
    this.owners.set(name, owner);
  }
}
