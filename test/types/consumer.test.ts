/**
 * Issue #14: the package type-checks in a user's project under the strict
 * flags people use, without the DOM lib and without skipLibCheck: what
 * `tsc` sees of webfw is the declaration files (`npm run types`, also run by
 * `prepare`), never the sources. And the `--create` scaffold type-checks as
 * generated. Both compile a project outside the repo, with `webfw` linked in
 * node_modules the way a `file:` install does.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../cli/helpers.ts";
import {
  buildPackageDeclarations,
  linkModules,
  tsc,
  USER_STRICT,
  writeProject,
} from "./helpers/tsc-project.ts";

const tmp = mkdtempSync(join(tmpdir(), "webfw-consumer-"));

const STRICT = {
  ...USER_STRICT,
  noPropertyAccessFromIndexSignature: true,
  noImplicitOverride: true,
  noImplicitReturns: true,
  noEmit: true,
};

beforeAll(buildPackageDeclarations, 120_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const USER_APP = `import { z } from "zod";
import { AuthenticationHandler, BearerGetter, HttpError, Identity, type Request, Response, serveFile, sse, statusCodes, SubRouter, t, Webfw } from "webfw";
import type { RouteToolOptions } from "webfw/mcp";
import { MustacheTemplate } from "webfw/templating";

interface Claims { sub: string; scope: string }

class Auth extends AuthenticationHandler<Claims> {
  override authenticate(request: Request): Identity<Claims> | null {
    const token = this.tokenGetter.getToken(request);
    return token === "t" ? new Identity<Claims>({ claims: { sub: "ada", scope: "notes:read" } }) : null;
  }
}

interface Database { name: string; query(sql: string): string[] }
const db: Database = { name: "notes", query: () => [] };

const app = new Webfw<{ global: { db: Database; version: string }; claims: Claims }>(import.meta.path, {
  maxBodySize: 1024 * 1024,
});
app.configureAuthentication(new Auth(new BearerGetter()));
app.injectGlobal({ db, version: "1" });
app.get("/typed", ({ globalDependencies, identity }) => {
  const rows: string[] = globalDependencies.db.query("select 1");
  const sub: string | undefined = identity?.claims.sub;
  // @ts-expect-error: no such dependency was declared
  globalDependencies.cache;
  return { rows, sub, version: globalDependencies.version };
});
app.cors({ origins: ["https://app.example"] });
const templates = new MustacheTemplate(import.meta.dir);

app.get("/", () => "hello");
app.get("/notes/:id", ({ pathParams, args }) => {
  const id: string = pathParams.id;
  const limit: number = args.limit;
  if (id === "0") throw new HttpError(statusCodes.HTTP_404_NOT_FOUND, "no such note");
  return { id, limit, sort: args.sort };
}, { args: { limit: t.int().min(1).max(100).default(10), sort: t.str().oneOf(["asc", "desc"]).default("asc") } });
app.post("/notes", ({ parsedBody }) => ({ title: parsedBody.title }), {
  body: z.object({ title: z.string().min(1) }),
  authRequired: true,
  mcp: { name: "add_note", description: "Add a note", annotations: { idempotentHint: false }, scopes: ["notes:write"] },
});
app.get("/feed", () => sse((async function* () { yield { event: "note", data: "1" }; })()));
app.get("/file", () => serveFile("./README.md"));
app.get("/page", () => templates.renderTemplate("page.mustache", { title: "x" }));
app.afterRequest((response) => { response.headers.set("x-app", "notes"); return response; });
app.exception((error) => new Response(500, {}, String(error)));

const admin = new SubRouter(import.meta.path, { prefix: "/admin" });
admin.get("/stats", () => ({ ok: true }));
app.includeRouter(admin);

const chat = app.websocket("/chat/:room", async (ws) => {
  for await (const message of ws) ws.sendText(String(message));
});
chat.onConnect((ws) => { ws.sendJson({ hello: ws.id }); });

app.mcp.tool(({ a, b }) => String(a + b), { name: "add", description: "adds", args: { a: t.int(), b: t.int() } });
app.mcp.configure({ auth: { resource: "https://api.example.com/mcp", authorizationServers: ["https://auth.example.com"], scopes: ["mcp"] } });
app.mcp.exposeRoutes((route) => route.method === "GET" && route.path.startsWith("/notes"));
const toolOptions: RouteToolOptions = { title: "Stats", authRequired: true };
admin.get("/tools", () => ({ ok: true }), { mcp: toolOptions });

const handle = await app.start({ port: 0 });
await handle.stop();
`;

const WRONG_USAGE = `import { t, Webfw } from "webfw";
const app = new Webfw(import.meta.path);
app.get("/u/:id", ({ pathParams, args }) => {
  // @ts-expect-error: the path has no such parameter
  pathParams.name;
  // @ts-expect-error: limit is a number
  const s: string = args.limit;
  return s;
}, { args: { limit: t.int() } });
// @ts-expect-error: scopes are a list of strings
app.get("/m", () => "m", { mcp: { scopes: "mcp" } });
// @ts-expect-error: maxBodySize is a number
new Webfw(import.meta.path, { maxBodySize: "big" });
const typed = new Webfw<{ global: { db: { name: string } } }>(import.meta.path);
// @ts-expect-error: db must be { name: string }
typed.injectGlobal({ db: 5 });
`;

/** Issue #20: routes in two files, a front end typed from them through `webfw/client`, strict flags. */
const CLIENT_ROUTES = `import { z } from "zod";
import { HttpError, sse, SubRouter, t } from "webfw";
export const notes = new SubRouter(import.meta.path, { prefix: "/notes" });
export const getNote = notes.get("/:id", ({ args }) => {
  if (args.id === 0) throw new HttpError(404, "no note");
  return { id: args.id, title: "t", at: new Date(), tags: [] as string[], draft: undefined as boolean | undefined };
}, { args: { id: t.int(), verbose: t.bool().default(false) }, responses: { 404: "no such note" } });
export const createNote = notes.post("/", ({ parsedBody }) => [{ id: 1, ...parsedBody }, 201] as const, {
  body: z.object({ title: z.string(), tags: z.array(z.string()).optional() }),
  authRequired: true,
});
export const feed = notes.get("/feed", () => sse((async function* () { yield { event: "n", data: { id: 1 } }; })()));
`;

const CLIENT_APP = `import { Webfw } from "webfw";
import { notes } from "./routes";
export * from "./routes";
export const app = new Webfw(import.meta.path);
app.includeRouter(notes);
export const chat = app.websocket("/chat", async () => {}).messages<{ text: string }, { echo: string }>();
`;

const CLIENT_FRONT = `import { client, type ClientFailure, unwrap } from "webfw/client";
import type * as Api from "./api.ts";
const api = client<typeof Api>("http://localhost:8080", { headers: () => ({ authorization: "Bearer t" }) });
export async function run(): Promise<string> {
  const note = await api.get("/notes/:id", { params: { id: 1 } });
  if (note.ok) {
    const at: string = note.data.at;
    const draft: boolean | undefined = note.data.draft;
    void draft;
    return at;
  }
  const failure: ClientFailure<400 | 404 | 500> = note;
  const created = unwrap(await api.post("/notes", { body: { title: "x" } }));
  const id: number = created.id;
  const events = await api.get("/notes/feed");
  if (events.ok) for await (const event of events.data) { const n: number = event.data.id; void n; }
  const socket = api.ws("/chat");
  await socket.send({ text: "hi" });
  for await (const message of socket) return message.echo;
  // @ts-expect-error: missing the id
  await api.get("/notes/:id", {});
  // @ts-expect-error: wrong body
  await api.post("/notes", { body: { title: 1 } });
  // @ts-expect-error: unknown route
  await api.get("/nothing");
  return \`\${failure.status} \${id}\`;
}
`;

describe("webfw/client in a user's strict project (declaration files)", () => {
  test("a front end typed from routes in two files compiles; wrong calls do not", async () => {
    const dir = join(tmp, "client");
    writeProject(dir, STRICT, { "routes.ts": CLIENT_ROUTES, "api.ts": CLIENT_APP, "front.ts": CLIENT_FRONT });
    const result = await tsc(dir);
    if (result.code !== 0) console.error(result.output);
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  }, 120_000);
});

describe("a user's project with strict flags, no DOM, skipLibCheck false", () => {
  test("an app using most of the API compiles", async () => {
    const dir = join(tmp, "user");
    writeProject(dir, STRICT, { "app.ts": USER_APP, "wrong.ts": WRONG_USAGE });
    const result = await tsc(dir);
    if (result.code !== 0) console.error(result.output);
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  }, 120_000);
});

describe("the --create scaffold type-checks as generated", () => {
  for (const template of ["plain", "sqlite", "postgres"]) {
    test(template, async () => {
      const name = `scaffold-${template}`;
      const created = await runCli(["--create", "--dir", name, "--template", template, "--no-docker"], {
        cwd: tmp,
      });
      expect(created.code).toBe(0);
      const dir = join(tmp, name);
      linkModules(dir);
      const result = await tsc(dir);
      if (result.code !== 0) console.error(result.output);
      expect(result.output).toBe("");
      expect(result.code).toBe(0);
    }, 120_000);
  }
});
