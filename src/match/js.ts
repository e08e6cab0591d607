/**
 * The `js` engine: a segment trie in TypeScript with a whole-path `Map` for
 * fully static routes. It is the reference the other engines are tested
 * against, and what `bun` uses outside `Bun.serve` (405 detection, the
 * in-process test client).
 */
import { normalisePath, type ParsedPattern, parsePattern, splitPattern } from "./pattern.ts";
import type { PathMatch, PathMatcher } from "./types.ts";

export { normalisePath, splitPattern };

interface Route {
  pattern: string;
  canonical: string;
  /** Capture names in path order (the wildcard last). */
  names: string[];
}

class TrieNode {
  statics: Map<string, TrieNode> | null = null;
  param: TrieNode | null = null;
  /** The route that ends exactly here. */
  route: Route | null = null;
  /** The `*name` route whose wildcard starts below this node. */
  wildcard: Route | null = null;
}

function conflict(added: string, existing: string): Error {
  return new Error(
    `conflicting route ${JSON.stringify(added)}: ${JSON.stringify(existing)} already matches the same paths`,
  );
}

export class JsMatcher implements PathMatcher {
  private readonly root = new TrieNode();
  /** Fully static routes by encoded path: a static match wins at every segment, so it may skip the trie. */
  private readonly staticRoutes = new Map<string, Route>();
  private readonly byCanonical = new Map<string, Route>();
  private dynamicCount = 0;

  add(pattern: string): void {
    const parsed = parsePattern(pattern);
    // Registering the same pattern twice (e.g. for two methods) is not an error.
    if (this.byCanonical.has(parsed.canonical)) return;
    const route: Route = { pattern, canonical: parsed.canonical, names: parsed.names };
    this.insert(parsed, route);
    this.byCanonical.set(parsed.canonical, route);
    if (parsed.isStatic) this.staticRoutes.set(parsed.canonical, route);
    else this.dynamicCount++;
  }

  private insert(parsed: ParsedPattern, route: Route): void {
    // Check the terminal slot before creating nodes, so a rejected add leaves no trace.
    const wild = parsed.segments.at(-1)?.kind === "wildcard";
    const existing = this.lookup(parsed);
    const taken = existing && (wild ? existing.wildcard : existing.route);
    if (taken) throw conflict(route.pattern, taken.pattern);
    const node = this.walkOrCreate(parsed);
    if (wild) node.wildcard = route;
    else node.route = route;
  }

  /** The node for the pattern's non-wildcard prefix, or null when it does not exist yet. */
  private lookup(parsed: ParsedPattern): TrieNode | null {
    let node: TrieNode | null = this.root;
    for (const seg of parsed.segments) {
      if (node === null || seg.kind === "wildcard") break;
      node = seg.kind === "static" ? (node.statics?.get(seg.value) ?? null) : node.param;
    }
    return node;
  }

  /** Returns the node for the pattern's non-wildcard prefix, creating missing nodes. */
  private walkOrCreate(parsed: ParsedPattern): TrieNode {
    let node = this.root;
    for (const seg of parsed.segments) {
      if (seg.kind === "wildcard") break;
      if (seg.kind === "static") {
        if (!node.statics) node.statics = new Map();
        let next = node.statics.get(seg.value);
        if (!next) {
          next = new TrieNode();
          node.statics.set(seg.value, next);
        }
        node = next;
      } else {
        if (!node.param) node.param = new TrieNode();
        node = node.param;
      }
    }
    return node;
  }

  match(path: string): PathMatch | null {
    const fixed = this.staticRoutes.get(path);
    if (fixed !== undefined) return { pattern: fixed.pattern, params: {} };
    if (this.dynamicCount === 0 || path.charCodeAt(0) !== 47) return null;
    const values: string[] = [];
    // The root path has no segments; any other path starts its first one at index 1.
    const route = find(this.root, path, path.length === 1 ? 2 : 1, values);
    if (route === null) return null;
    const params: Record<string, string> = {};
    const names = route.names;
    for (let i = 0; i < names.length; i++) params[names[i]!] = values[i]!;
    return { pattern: route.pattern, params };
  }
}

/**
 * Depth-first search, static before param before wildcard. `pos` is where the
 * next segment starts, `path.length + 1` once none is left. Segments are read
 * with indexOf/slice rather than split(): no array per request. The trie is
 * a tree, so each node is entered at most once per match: backtracking is
 * linear in the nodes visited, never exponential.
 */
function find(node: TrieNode, path: string, pos: number, values: string[]): Route | null {
  const len = path.length;
  if (pos > len) {
    if (node.route) return node.route;
    if (node.wildcard) {
      values.push("");
      return node.wildcard;
    }
    return null;
  }
  let end = path.indexOf("/", pos);
  if (end === -1) end = len;
  const seg = path.slice(pos, end);
  if (node.statics) {
    const child = node.statics.get(seg);
    if (child) {
      const found = find(child, path, end + 1, values);
      if (found) return found;
    }
  }
  // An empty segment (`//`) is never a parameter value, as in Bun's router.
  if (node.param && end > pos) {
    values.push(seg);
    const found = find(node.param, path, end + 1, values);
    if (found) return found;
    values.pop();
  }
  if (node.wildcard) {
    values.push(end === len ? seg : path.slice(pos));
    return node.wildcard;
  }
  return null;
}
