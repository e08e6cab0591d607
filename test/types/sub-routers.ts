/**
 * Type tests of `app.router(prefix)` and `SubRouter.typed<AppTypes>()` (issue #31), checked by
 * `tsc --noEmit -p .`; never run. Handlers of sub-routers see the app's declared dependencies
 * and claims without casts, and route handles carry the whole path for `webfw/client`.
 * A wrong assertion fails the check (`assertType<false>` does not compile; neither does an
 * unused `@ts-expect-error`).
 */
import { SubRouter, t, Webfw } from "webfw";
import { client } from "webfw/client";

type Equals<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;
function assertType<_T extends true>(): void {}

interface Database {
  query(sql: string): string[];
}
interface Audit {
  write(line: string): void;
}
interface Claims {
  sub: string;
  scope: string;
}
interface Api {
  global: { db: Database };
  router: { audit: Audit };
  claims: Claims;
}

const app = new Webfw<Api>(import.meta.path);

// One router from the app: the prefix written once, the app's types carried.
const api = app.router("/api", { dependencies: { audit: { write: () => {} } } });
assertType<Equals<typeof api, SubRouter<Api, "/api">>>();
export const listNotes = api.get("/notes", ({ globalDependencies, routerDependencies, identity }) => {
  assertType<Equals<typeof globalDependencies.db, Database>>();
  assertType<Equals<typeof routerDependencies.audit, Audit>>();
  assertType<Equals<typeof identity, import("webfw").Identity<Claims> | null>>();
  return globalDependencies.db.query("select title from notes");
});
// Nested: the handle's path has both prefixes.
const v2 = api.router("v2/");
assertType<Equals<typeof v2, SubRouter<Api, "/api/v2">>>();
export const getNote = v2.get(
  "/notes/:id",
  ({ args, identity }) => ({ id: args.id, by: identity?.claims.sub }),
  {
    args: { id: t.int() },
  },
);

// A router in its own file: the types bound once, the prefix inferred from the options.
const ApiRouter = SubRouter.typed<Api>();
export const admin = new ApiRouter(import.meta.path, { prefix: "/admin" });
assertType<Equals<typeof admin, SubRouter<Api, "/admin">>>();
export const stats = admin.get("/stats", ({ globalDependencies }) => ({
  rows: globalDependencies.db.query(""),
}));
app.includeRouter(admin);

const front = client<{ listNotes: typeof listNotes; getNote: typeof getNote; stats: typeof stats }>(
  "http://localhost",
);
export async function calls(): Promise<void> {
  const notes = await front.get("/api/notes");
  if (notes.ok) assertType<Equals<typeof notes.data, string[]>>();
  const note = await front.get("/api/v2/notes/:id", { params: { id: 1 } });
  if (note.ok) assertType<Equals<typeof note.data, { id: number; by?: string }>>();
  const rows = await front.get("/admin/stats");
  if (rows.ok) assertType<Equals<typeof rows.data.rows, string[]>>();
  // @ts-expect-error: the handle's path includes the router's prefix
  await front.get("/notes");
  // @ts-expect-error: and every enclosing router's
  await front.get("/v2/notes/:id", { params: { id: 1 } });
}

export function wrong(): void {
  api.get("/x", ({ globalDependencies }) => {
    // @ts-expect-error: no such global dependency was declared
    globalDependencies.cache;
    return "";
  });
  // @ts-expect-error: router dependencies are checked against the app's `router` type
  app.router("/bad", { dependencies: { audit: 5 } });
  // @ts-expect-error: a prefix is text
  new ApiRouter(import.meta.path, { prefix: 5 });
}
