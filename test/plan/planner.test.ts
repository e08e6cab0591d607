import { describe, expect, test } from "bun:test";
import { AuthenticationHandler, BearerGetter, SubRouter, Webfw } from "../../src/index.ts";
import { planRoute } from "../../src/plan/plan.ts";
import { scopeOf, walkTree } from "../../src/plan/tree.ts";

class Always extends AuthenticationHandler {
  constructor() {
    super(new BearerGetter());
  }
  override authenticate() {
    return null;
  }
}

describe("the router tree is walked once into routes, WebSockets and middlewares", () => {
  const app = new Webfw(import.meta.path);
  const outer = () => undefined;
  const scoped = () => undefined;
  const inner = () => undefined;
  app.beforeRequest(outer);
  app.beforeRequest("/api/x", scoped);
  const api = new SubRouter(import.meta.path, { prefix: "/api" });
  api.beforeRequest(inner);
  api.inject({ db: 1 });
  api.get("/x", () => "x");
  api.websocket("/ws", () => undefined);
  app.includeRouter(api);
  app.get("/", () => "root");
  const tree = walkTree(app);

  test("every route with its chain, outermost router first", () => {
    expect(tree.routes.map(({ route, chain }) => [route.path, chain.length])).toEqual([
      ["/", 1],
      ["/api/x", 2],
    ]);
    expect(tree.websockets.map(({ route, chain }) => [route.path, chain.length])).toEqual([["/api/ws", 2]]);
  });

  test("a route's scope: global, then its routers', then the ones scoped to its path", () => {
    const owned = tree.routes.find(({ route }) => route.path === "/api/x");
    if (!owned) throw new Error("route missing");
    const scope = scopeOf(tree, owned.chain, "/api/x");
    expect(scope.before).toEqual([outer, inner, scoped]);
    expect(scope.routerDependencies).toEqual({ db: 1 });
    expect(scopeOf(tree, [app], "/").before).toEqual([outer]);
  });

  test("the planner refuses authRequired without authentication and args that are not specs", () => {
    const spec = { pattern: "/p", method: "GET", handler: () => "", label: "GET /p" };
    expect(() => planRoute(tree, [app], { ...spec, options: { authRequired: true } })).toThrow(
      "GET /p has authRequired but no authentication is configured",
    );
    const bad = { n: 5 } as unknown as Record<string, never>;
    expect(() => planRoute(tree, [app], { ...spec, options: { args: bad } })).toThrow(
      "args.n of GET /p is not a t.* spec",
    );
    const withAuth = new Webfw(import.meta.path).configureAuthentication(new Always());
    const plan = planRoute(walkTree(withAuth), [withAuth], { ...spec, options: { authRequired: true } });
    expect(plan.auth).toBeInstanceOf(Always);
    expect(plan.pathParamNames).toEqual([]);
  });
});
