/**
 * The one walk of the router tree at start. Everything the planner needs to
 * know about where a route sits (its chain of routers, the middlewares that
 * apply to its path, the nearest authentication) is read here, once.
 */
import type { AuthenticationHandler } from "../auth/handler.ts";
import type { AfterMiddleware, BeforeMiddleware } from "../router/middleware.ts";
import type { RouteRecord } from "../router/route.ts";
import type { RouterBase } from "../router/router-base.ts";
import type { WebSocketRoute } from "../websocket/route.ts";

/** A route or WebSocket route with its chain of routers, outermost (the app) first. */
export interface Owned<R> {
  route: R;
  chain: RouterBase[];
}

/** The router tree, flattened. */
export interface RouterTree {
  root: RouterBase;
  routes: Owned<RouteRecord>[];
  websockets: Owned<WebSocketRoute>[];
  /** Middlewares registered without a path on the root: they run for every request, errors included. */
  globalBefore: BeforeMiddleware[];
  globalAfter: AfterMiddleware[];
  /** Path-scoped middlewares of the whole tree, by full pattern, in registration order per router. */
  scopedBefore: Map<string, BeforeMiddleware[]>;
  scopedAfter: Map<string, AfterMiddleware[]>;
}

/** Walks the tree once, depth first, in registration order. */
export function walkTree(root: RouterBase): RouterTree {
  const tree: RouterTree = {
    root,
    routes: [],
    websockets: [],
    globalBefore: unscoped(root.before),
    globalAfter: unscoped(root.after),
    scopedBefore: new Map(),
    scopedAfter: new Map(),
  };
  const visit = (router: RouterBase, chain: RouterBase[]): void => {
    for (const route of router.routes) tree.routes.push({ route, chain });
    for (const route of router.websockets) tree.websockets.push({ route, chain });
    for (const m of router.before) if (m.path !== null) push(tree.scopedBefore, m.path, m.fn);
    for (const m of router.after) if (m.path !== null) push(tree.scopedAfter, m.path, m.fn);
    for (const child of router.children) visit(child, [...chain, child]);
  };
  visit(root, [root]);
  return tree;
}

/** What applies to a route at `path` under `chain`: middlewares (outermost first), auth, dependencies. */
export interface Scope {
  before: BeforeMiddleware[];
  after: AfterMiddleware[];
  auth: AuthenticationHandler | null;
  routerDependencies: Record<string, unknown>;
}

export function scopeOf(tree: RouterTree, chain: RouterBase[], path: string): Scope {
  const routers = chain.slice(1);
  return {
    before: [
      ...tree.globalBefore,
      ...routers.flatMap((r) => unscoped(r.before)),
      ...(tree.scopedBefore.get(path) ?? []),
    ],
    after: [
      ...tree.globalAfter,
      ...routers.flatMap((r) => unscoped(r.after)),
      ...(tree.scopedAfter.get(path) ?? []),
    ],
    auth: nearestAuth(chain),
    // A sub-router's dependencies merge down its chain; the app's own are for routes on the app.
    routerDependencies:
      routers.length > 0 ? Object.assign({}, ...routers.map((r) => r.dependencies)) : tree.root.dependencies,
  };
}

function unscoped<F>(list: readonly { path: string | null; fn: F }[]): F[] {
  return list.filter((m) => m.path === null).map((m) => m.fn);
}

function push<F>(map: Map<string, F[]>, key: string, fn: F): void {
  const list = map.get(key);
  if (list) list.push(fn);
  else map.set(key, [fn]);
}

function nearestAuth(chain: RouterBase[]): AuthenticationHandler | null {
  for (let i = chain.length - 1; i >= 0; i--) {
    const handler = (chain[i] as RouterBase).authHandler;
    if (handler) return handler;
  }
  return null;
}

/**
 * A feature's setting is declared somewhere (its mount is on): a route's option or a router's
 * setting (of any router a route hangs under, or the root) is not `undefined`.
 */
export function settingDeclared(
  tree: RouterTree,
  onRoute: (route: RouteRecord) => unknown,
  onRouter: (router: RouterBase) => unknown,
): boolean {
  return (
    tree.routes.some(({ route }) => onRoute(route) !== undefined) ||
    [...routersOf(tree)].some((router) => onRouter(router) !== undefined)
  );
}

/** Every router a route of the tree hangs under, and the root: where a feature's settings may be. */
export function routersOf(tree: RouterTree): Set<RouterBase> {
  const routers = new Set<RouterBase>([tree.root]);
  for (const { chain } of tree.routes) for (const router of chain) routers.add(router);
  return routers;
}
