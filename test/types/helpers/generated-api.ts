/**
 * A user's API project, generated: the server module tree a monorepo shares (an app typed with
 * `AppTypes`, routers from `app.router(prefix)` and `SubRouter.typed<Api>()` in their own files,
 * every route handle exported, route options of every kind, SSE, HTML, file and WebSocket
 * routes) and a front end typed from it through `webfw/client`. `webfw` is linked in
 * node_modules the way a `file:` install does, so `tsc` reads the package's declaration files.
 * Used by test/types/declarations.test.ts (issue #40).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { USER_STRICT, writeProject } from "./tsc-project.ts";

const ROUTES_PER_FILE = 20;

/** A user's strict options, plus what the test turns on (declaration, incremental). */
export function compilerOptions(extra: Record<string, unknown>): Record<string, unknown> {
  return { ...USER_STRICT, allowImportingTsExtensions: true, ...extra };
}

/** Route `j` of file `f`: the option kinds a real API uses, in turn. */
function route(f: number, j: number): string {
  const name = `r${f}_${j}`;
  switch (j % 5) {
    case 0:
      return `export const ${name} = router.get("/items${j}/:id", ({ args, globalDependencies, identity }) => {
  if (args.id === 0) throw new HttpError(404, "no such item");
  return { id: args.id, price: ${j}, at: new Date(), by: identity?.claims.sub, db: globalDependencies.db.name, sort: args.sort };
}, { args: { id: t.int().min(1), sort: t.str().oneOf(["asc", "desc"]).default("asc") }, responses: { 404: "no such item" } });`;
    case 1:
      return `export const ${name} = router.post("/items${j}", ({ parsedBody }) => [{ ...parsedBody, id: ${j} }, 201] as const, {
  body: z.object({ title: z.string().min(1), tags: z.array(z.string()).optional() }),
  authRequired: true,
  mcp: { name: "create_${name}", description: "Create an item", annotations: { idempotentHint: false } },
});`;
    case 2:
      return `export const ${name} = router.put("/items${j}/:id", ({ args, parsedBody }) => ({ id: args.id, ...parsedBody }), {
  args: { id: t.int() },
  body: t.object({ title: t.str(), done: t.bool().default(false), count: t.optional(t.float()) }),
  rateLimit: { limit: 10, windowMs: 60_000 },
});`;
    case 3:
      return `export const ${name} = router.get("/items${j}", ({ args }) => args.tags.map((tag) => ({ tag, limit: args.limit })), {
  args: { tags: t.list(t.str()), limit: t.optional(t.int()), when: z.coerce.date().optional() },
  summary: "List items", tags: ["items"],
});`;
    default:
      return `export const ${name} = router.delete("/items${j}/:id", () => undefined, { args: { id: t.int() }, authRequired: true });`;
  }
}

export interface GeneratedApi {
  /** The file whose first route returns `price` (the field the incremental test renames). */
  priceFile: string;
}

/** Writes the project into `dir` (tsconfig.json with `options`), `routes` routes in all. */
export function generateApi(dir: string, routes: number, options: Record<string, unknown>): GeneratedApi {
  writeProject(dir, options, {});
  writeFileSync(
    join(dir, "types.ts"),
    `import { AuthenticationHandler, Identity, type Request, SubRouter } from "webfw";
export interface Database { name: string; query(sql: string): string[] }
export interface Claims { sub: string; scope: string }
export interface Api { global: { db: Database }; claims: Claims }
/** Routers in their own files get the app's types from here, their prefix from their options. */
export const ApiRouter = SubRouter.typed<Api>();
export class Auth extends AuthenticationHandler<Claims> {
  override authenticate(request: Request): Identity<Claims> | null {
    const token = this.tokenGetter.getToken(request);
    return token === null ? null : new Identity<Claims>({ claims: { sub: token, scope: "items" } });
  }
}
`,
  );
  const files = Math.ceil(routes / ROUTES_PER_FILE);
  const exports: string[] = [];
  for (let f = 0; f < files; f++) {
    const count = Math.min(ROUTES_PER_FILE, routes - f * ROUTES_PER_FILE);
    const body = [
      `import { z } from "zod";`,
      `import { HttpError, t } from "webfw";`,
      `import { ApiRouter } from "./types.ts";`,
      `export const router${f} = new ApiRouter(import.meta.path, { prefix: "/r${f}" });`,
      `const router = router${f};`,
      ...Array.from({ length: count }, (_, j) => route(f, j)),
    ];
    writeFileSync(join(dir, `routes${f}.ts`), `${body.join("\n")}\n`);
    exports.push(`import { router${f} } from "./routes${f}.ts";\nexport * from "./routes${f}.ts";`);
  }
  writeFileSync(
    join(dir, "app.ts"),
    `import { BearerGetter, html, serveFile, sse, t, Webfw } from "webfw";
import { type Api, Auth } from "./types.ts";
${exports.join("\n")}
export const app = new Webfw<Api>(import.meta.path);
app.configureAuthentication(new Auth(new BearerGetter()));
app.injectGlobal({ db: { name: "items", query: () => [] } });
${Array.from({ length: files }, (_, f) => `app.includeRouter(router${f});`).join("\n")}
export const v1 = app.router("/v1");
export const feed = v1.get("/feed", () => sse((async function* () { yield { event: "item", data: { id: 1 } }; })()));
export const page = v1.get("/page", () => html("<p>hi</p>"));
export const file = v1.get("/file", () => serveFile("./README.md"));
export const admin = v1.router("/admin", { authentication: new Auth(new BearerGetter()) });
export const stats = admin.get("/stats", ({ globalDependencies }) => ({ rows: globalDependencies.db.query("") }));
export const chat = app.websocket("/chat/:room", async () => {}, { args: { room: t.str() } }).messages<{ text: string }, { echo: string }>();
`,
  );
  writeFileSync(
    join(dir, "front.ts"),
    `import { client } from "webfw/client";
import { testClient } from "webfw/testing";
import type * as Api from "./app.ts";
import { app, r0_0 } from "./app.ts";
export const api = client<typeof Api>("http://localhost:8080", { headers: { authorization: "Bearer ada" } });
export const inProcess = testClient<typeof Api>(app);
export async function priceOf(id: number): Promise<number> {
  const item = await api.get("/r0/items0/:id", { params: { id } });
  return item.ok ? item.data.price : 0;
}
export const firstItem = await app.request(r0_0, { params: { id: 1 } });
export const stats = await inProcess.get("/v1/admin/stats");
export const socket = api.ws("/chat/:room", { params: { room: "a" } });
`,
  );
  return { priceFile: join(dir, "routes0.ts") };
}
