/**
 * The `ffi` engine: `native/router.c` called through `bun:ffi`.
 *
 * Crossing the FFI boundary is the expensive part, so a match is one call
 * with two numbers: the path bytes are copied into a C-owned buffer through a
 * typed-array view taken once, and the C side writes the route index and the
 * capture offsets into a C-owned int32 array read through another view.
 */
import { type Pointer, toArrayBuffer } from "bun:ffi";
import { type LoadedRouter, loadRouter, type NativeLoader, type RouterSymbols } from "./native-loader.ts";
import { parsePattern } from "./pattern.ts";
import type { PathMatch, PathMatcher } from "./types.ts";

export type { NativeLoader } from "./native-loader.ts";

export interface FfiMatcherOptions {
  /** `auto` (default): system compiler + dlopen, else TinyCC; or force one path. */
  loader?: NativeLoader;
}

interface Route {
  pattern: string;
  names: string[];
}

// Error codes from router.h.
const WF_NO_MATCH = -1;
const WF_ENOMEM = -2;
const WF_ECONFLICT = -4;

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

// Frees routers whose matcher was dropped without close().
const finalizer = new FinalizationRegistry<{ free: (handle: Pointer) => void; handle: Pointer }>((held) => {
  held.free(held.handle);
});

/** `/u/:id` and `/u/:name` have the same shape: they would match the same paths. */
function shapeOf(canonical: string): string {
  return canonical.replace(/\/:[^/]*/g, "/:").replace(/\/\*[^/]*$/, "/*");
}

export class FfiMatcher implements PathMatcher {
  /** Which loader produced the library: the system compiler (`dlopen`) or TinyCC. */
  readonly loader: "dlopen" | "tinycc";
  private readonly fns: RouterSymbols;
  private handle: Pointer | null;
  private buffer: Uint8Array = new Uint8Array(0);
  private results: Int32Array = new Int32Array(0);
  private readonly routes: Route[] = [];
  private readonly shapes = new Map<string, string>();
  private readonly token = {};

  constructor(options: FfiMatcherOptions = {}) {
    const lib: LoadedRouter = loadRouter(options.loader ?? "auto");
    this.loader = lib.loader;
    this.fns = lib.symbols;
    const handle = this.fns.wf_router_new(lib.malloc, lib.free);
    if (handle === null || typeof handle === "bigint") throw new Error("native router: out of memory");
    this.handle = handle;
    this.refreshViews();
    finalizer.register(this, { free: (h) => lib.symbols.wf_router_free(h), handle }, this.token);
  }

  /** Re-reads the buffer and result pointers: add() and reserve() may move them. */
  private refreshViews(): void {
    const h = this.live();
    const buf = this.fns.wf_router_buffer(h)!;
    this.buffer = new Uint8Array(toArrayBuffer(buf, 0, this.fns.wf_router_buffer_capacity(h)));
    const res = this.fns.wf_router_results(h)!;
    this.results = new Int32Array(toArrayBuffer(res, 0, this.fns.wf_router_results_capacity(h) * 4));
  }

  private live(): Pointer {
    if (this.handle === null) throw new Error("native router is closed");
    return this.handle;
  }

  private reserve(bytes: number): void {
    const rc = this.fns.wf_router_reserve(this.live(), bytes);
    if (rc < 0) throw new Error(`native router: cannot reserve ${bytes} bytes (code ${rc})`);
    this.refreshViews();
  }

  add(pattern: string): void {
    const parsed = parsePattern(pattern);
    const bytes = utf8.encode(parsed.canonical);
    if (bytes.length > this.buffer.length) this.reserve(bytes.length);
    this.buffer.set(bytes);
    const rc = this.fns.wf_router_add(this.live(), bytes.length);
    this.refreshViews();
    if (rc >= 0) {
      // An index we already know means the same pattern again: idempotent.
      if (rc === this.routes.length) {
        this.routes.push({ pattern, names: parsed.names });
        this.shapes.set(shapeOf(parsed.canonical), pattern);
      }
      return;
    }
    if (rc === WF_ECONFLICT) {
      const existing = this.shapes.get(shapeOf(parsed.canonical)) ?? "another route";
      throw new Error(
        `conflicting route ${JSON.stringify(pattern)}: ${JSON.stringify(existing)} already matches the same paths`,
      );
    }
    if (rc === WF_ENOMEM) throw new Error("native router: out of memory");
    throw new Error(`invalid route pattern ${JSON.stringify(pattern)} (native code ${rc})`);
  }

  match(path: string): PathMatch | null {
    const h = this.live();
    let { read, written } = utf8.encodeInto(path, this.buffer);
    if (read < path.length) {
      this.reserve(path.length * 3);
      ({ read, written } = utf8.encodeInto(path, this.buffer));
    }
    const rc = this.fns.wf_router_match(h, written);
    if (rc === WF_NO_MATCH) return null;
    if (rc < 0) throw new Error(`native router: match failed (code ${rc})`);
    const route = this.routes[rc]!;
    const params: Record<string, string> = {};
    const names = route.names;
    if (names.length === 0) return { pattern: route.pattern, params };
    const res = this.results;
    // Offsets are bytes; for an all-ASCII path (the normal, percent-encoded case) they are string indexes too.
    const ascii = written === path.length;
    for (let i = 0; i < names.length; i++) {
      const start = res[2 + 2 * i]!;
      const end = res[3 + 2 * i]!;
      params[names[i]!] = ascii
        ? path.slice(start, end)
        : utf8Decoder.decode(this.buffer.subarray(start, end));
    }
    return { pattern: route.pattern, params };
  }

  close(): void {
    if (this.handle === null) return;
    finalizer.unregister(this.token);
    this.fns.wf_router_free(this.handle);
    this.handle = null;
    this.buffer = new Uint8Array(0);
    this.results = new Int32Array(0);
  }
}
