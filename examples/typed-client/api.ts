/**
 * The API of the typed-client example: a SubRouter in its own file, registered statement
 * by statement; each route the front end calls is exported (its handle carries its types).
 */
import { z } from "zod";
import { HttpError, SubRouter, sse, t } from "../../src/index.ts";

export interface Note {
  id: number;
  title: string;
  done: boolean;
  createdAt: Date;
}

const notes = new Map<number, Note>();
let nextId = 1;

/** Who is listening to the change feed: each gets every change as it happens. */
type Change = { event: "created" | "deleted"; data: Note };
const listeners = new Set<(change: Change) => void>();
function announce(change: Change): void {
  for (const listener of listeners) listener(change);
}

/** The changes from now on, until the client goes (`signal`). */
async function* changes(signal: AbortSignal): AsyncGenerator<Change> {
  const queue: Change[] = [];
  let wake: (() => void) | null = null;
  const listener = (change: Change) => {
    queue.push(change);
    wake?.();
  };
  listeners.add(listener);
  const aborted = new Promise<void>((resolve) =>
    signal.addEventListener("abort", () => resolve(), { once: true }),
  );
  try {
    while (!signal.aborted) {
      const next = queue.shift();
      if (next) {
        yield next;
        continue;
      }
      await Promise.race([new Promise<void>((resolve) => (wake = resolve)), aborted]);
      wake = null;
    }
  } finally {
    listeners.delete(listener);
  }
}

export const notesApi = new SubRouter(import.meta.path, { prefix: "/api/notes" });

export const listNotes = notesApi.get(
  "/",
  ({ args }) => [...notes.values()].filter((note) => args.done === undefined || note.done === args.done),
  { args: { done: t.optional(t.bool()) } },
);

export const getNote = notesApi.get(
  "/:id",
  ({ args }) => {
    const note = notes.get(args.id);
    if (!note) throw new HttpError(404, `no note ${args.id}`);
    return note;
  },
  { args: { id: t.int().min(1) }, responses: { 404: "no such note" } },
);

export const createNote = notesApi.post(
  "/",
  ({ parsedBody }) => {
    const note: Note = { id: nextId++, title: parsedBody.title, done: false, createdAt: new Date() };
    notes.set(note.id, note);
    announce({ event: "created", data: note });
    return [note, 201] as const;
  },
  { body: z.object({ title: z.string().trim().min(1, "a note needs a title").max(200) }) },
);

export const deleteNote = notesApi.delete(
  "/:id",
  ({ args }) => {
    const note = notes.get(args.id);
    if (!note) throw new HttpError(404, `no note ${args.id}`);
    notes.delete(args.id);
    announce({ event: "deleted", data: note });
  },
  { args: { id: t.int().min(1) }, responses: { 404: "no such note" } },
);

export const noteChanges = notesApi.get("/changes", (request) => sse(changes(request.raw.signal)));

/** Which note each client is editing (by name), as last reported. */
const editing = new Map<string, number | null>();

/**
 * Clients report which note they are editing and get back who is editing what. The messages are
 * declared with schemas: checked on the server (a message that does not match closes the
 * connection with 1007; what the handler sends is checked too) and typed in the client
 * (`api.ws("/api/notes/editing")`).
 */
export const editingSocket = notesApi
  .websocket("/editing", async (ws) => {
    for (;;) {
      const report = await ws.receiveJson<{ name: string; note: number | null }>();
      editing.set(report.name, report.note);
      await ws.sendJson({ editors: Object.fromEntries(editing), at: Date.now() });
    }
  })
  .messages({
    client: z.object({
      name: z.string().trim().min(1).max(40),
      note: z.number().int().min(1).nullable().default(null),
    }),
    server: z.object({ editors: z.record(z.string(), z.number().int().nullable()), at: z.number() }),
  });
