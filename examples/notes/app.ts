/**
 * "Team notes": the cookbook's service (docs/cookbook-notes.md), most of the
 * framework at once. bun:sqlite CRUD through an injected dependency, typed
 * args and a zod body, bearer auth with typed claims, CORS, a WebSocket and
 * an SSE change feed through topics, uploads, a template page, OpenAPI and
 * MCP tools. `NOTES_DB` picks the database file (default: in memory).
 *
 *   bun examples/notes/app.ts --port 8080
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { z } from "zod";
import {
  AuthenticationHandler,
  BearerGetter,
  HttpError,
  Identity,
  type Request,
  Response,
  sse,
  t,
  Webfw,
} from "../../src/index.ts";
import { MustacheTemplate } from "../../src/templating/index.ts";

interface Claims {
  sub: string;
}

export interface Note {
  id: number;
  text: string;
  author: string;
  attachment: string | null;
}

/** The notes store: one small class over bun:sqlite, injected into every handler. */
export class NotesStore {
  private readonly db: Database;
  constructor(path = ":memory:") {
    this.db = new Database(path, { create: true, strict: true });
    this.db.run(
      "CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL, author TEXT NOT NULL, attachment TEXT, data BLOB)",
    );
  }
  list(limit: number, author?: string): Note[] {
    const sql = `SELECT id, text, author, attachment FROM notes ${author ? "WHERE author = $author" : ""} ORDER BY id LIMIT $limit`;
    return this.db.query(sql).all(author ? { author, limit } : { limit }) as Note[];
  }
  get(id: number): Note | null {
    return this.db
      .query("SELECT id, text, author, attachment FROM notes WHERE id = $id")
      .get({ id }) as Note | null;
  }
  add(text: string, author: string): Note {
    const row = this.db
      .query("INSERT INTO notes (text, author) VALUES ($text, $author) RETURNING id")
      .get({ text, author }) as { id: number };
    return { id: row.id, text, author, attachment: null };
  }
  attach(id: number, name: string, data: Uint8Array): void {
    this.db.query("UPDATE notes SET attachment = $name, data = $data WHERE id = $id").run({ id, name, data });
  }
  attachment(id: number): { name: string; data: Uint8Array } | null {
    const row = this.db
      .query("SELECT attachment AS name, data FROM notes WHERE id = $id AND data IS NOT NULL")
      .get({ id });
    return (row as { name: string; data: Uint8Array } | null) ?? null;
  }
  remove(id: number): boolean {
    return this.db.query("DELETE FROM notes WHERE id = $id").run({ id }).changes > 0;
  }
}

/** Tokens are "user:<name>" here; a real service verifies a JWT (docs/authentication.md). */
class TokenAuth extends AuthenticationHandler<Claims> {
  override authenticate(request: Request): Identity<Claims> | null {
    const token = this.tokenGetter.getToken(request);
    return token?.startsWith("user:") ? new Identity<Claims>({ claims: { sub: token.slice(5) } }) : null;
  }
}

export const app = new Webfw<{ global: { notes: NotesStore }; claims: Claims }>(import.meta.path);
const store = new NotesStore(process.env.NOTES_DB);
app.injectGlobal({ notes: store });
app.configureAuthentication(new TokenAuth(new BearerGetter()));
app.cors({ origins: ["http://localhost:5173"] });
if (process.env.REDIS_URL) app.configureBroadcast({ redisUrl: process.env.REDIS_URL, channel: "notes" });
const pages = new MustacheTemplate(join(import.meta.dir, "templates"));

app.get("/notes", ({ globalDependencies, args }) => globalDependencies.notes.list(args.limit, args.author), {
  args: { limit: t.int().min(1).max(100).default(20), author: t.optional(t.str().maxLength(40)) },
  summary: "List notes",
});
app.get(
  "/notes/:id",
  ({ globalDependencies, args }) => {
    const note = globalDependencies.notes.get(args.id);
    if (note === null) throw new HttpError(404, `no note ${args.id}`);
    return note;
  },
  { args: { id: t.int().min(1) }, summary: "One note" },
);
app.post(
  "/notes",
  ({ globalDependencies, parsedBody, identity }) => {
    const note = globalDependencies.notes.add(parsedBody.text, identity?.claims.sub ?? "anonymous");
    app.publish("notes", { type: "created", note });
    return [note, 201];
  },
  { body: z.object({ text: z.string().min(1).max(2000) }), authRequired: true, summary: "Add a note" },
);
app.delete(
  "/notes/:id",
  ({ globalDependencies, args }) => {
    if (!globalDependencies.notes.remove(args.id)) throw new HttpError(404, `no note ${args.id}`);
    app.publish("notes", { type: "deleted", id: args.id });
    return null;
  },
  { args: { id: t.int().min(1) }, authRequired: true },
);
// Uploads: one file per note, kept in the database.
app.post(
  "/notes/:id/attachment",
  ({ globalDependencies, args, files }) => {
    const [name, data] = Object.entries(files)[0] ?? [];
    if (name === undefined || data === undefined)
      throw new HttpError(400, "send one file (multipart/form-data)");
    if (globalDependencies.notes.get(args.id) === null) throw new HttpError(404, `no note ${args.id}`);
    globalDependencies.notes.attach(args.id, name, data);
    app.publish("notes", { type: "attached", id: args.id, name });
    return { id: args.id, attachment: name, bytes: data.length };
  },
  { args: { id: t.int().min(1) }, authRequired: true },
);
app.get(
  "/notes/:id/attachment",
  ({ globalDependencies, args }) => {
    const file = globalDependencies.notes.attachment(args.id);
    if (file === null) throw new HttpError(404, "no attachment");
    const response = new Response(200, { "content-type": "application/octet-stream" }, file.data);
    response.headers.set(
      "content-disposition",
      `attachment; filename="${file.name.replace(/["\\\r\n]/g, "_")}"`,
    );
    return response;
  },
  { args: { id: t.int().min(1) } },
);
// The page, rendered from a template (escaped by Mustache).
app.get("/", ({ globalDependencies }) =>
  pages.renderTemplate("notes.mustache", { title: "Team notes", notes: globalDependencies.notes.list(100) }),
);
// Change feeds: the same topic as SSE and over a WebSocket.
app.get("/changes", (request) => sse(app.subscribe("notes", request.raw.signal)));
const live = app.websocket("/live", async (ws) => {
  for await (const _ of ws) ws.sendText("this feed is read-only");
});
live.onConnect((ws) => {
  ws.subscribe("notes");
});
// MCP: the same store as tools, for assistants.
app.mcp.tool(({ limit }) => JSON.stringify(store.list(limit)), {
  name: "list_notes",
  description: "The latest notes",
  args: { limit: t.int().default(10) },
});
app.mcp.tool(
  ({ text }) => {
    const note = store.add(text, "assistant");
    app.publish("notes", { type: "created", note });
    return `added note ${note.id}`;
  },
  { name: "add_note", description: "Adds a note", args: { text: t.str() } },
);

if (import.meta.main) {
  const server = await app.start();
  console.log(`listening ${server.url} pid=${process.pid}`);
}

export default app;
