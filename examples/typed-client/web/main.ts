/**
 * The example's front end: plain TypeScript, no framework, bundled for the browser.
 * Every call goes through the typed client: the paths, params, bodies and results below
 * are checked against the server's routes by `tsc` (change a route and this stops compiling).
 */
import { client } from "../../../src/client/index.ts";
import type * as Api from "../server.ts";

const api = client<typeof Api>("/");

const list = document.querySelector("#notes") as HTMLUListElement;
const form = document.querySelector("#add") as HTMLFormElement;
const error = document.querySelector("#error") as HTMLParagraphElement;
const live = document.querySelector("#live") as HTMLParagraphElement;

function show(message: string): void {
  error.textContent = message;
}

async function refresh(): Promise<void> {
  const notes = await api.get("/api/notes");
  if (!notes.ok) return show(`could not list the notes (${notes.status}): ${notes.message}`);
  list.replaceChildren(
    ...notes.data.map((note) => {
      const item = document.createElement("li");
      item.dataset.id = String(note.id);
      // createdAt is a string here: the server's Date, as JSON sends it.
      const title = document.createElement("span");
      title.textContent = `${note.title} (${new Date(note.createdAt).toLocaleDateString("en")})`;
      const remove = document.createElement("button");
      remove.textContent = "Delete";
      remove.addEventListener("click", () => void removeNote(note.id));
      item.append(title, remove);
      return item;
    }),
  );
}

async function removeNote(id: number): Promise<void> {
  const result = await api.delete("/api/notes/:id", { params: { id } });
  if (!result.ok) show(result.status === 404 ? `already gone: ${result.message}` : `error ${result.status}`);
  await refresh();
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const title = String(new FormData(form).get("title") ?? "");
  const created = await api.post("/api/notes", { body: { title } });
  if (created.ok) {
    show("");
    form.reset();
  } else if (created.status === 422) {
    show(created.issues.map((issue) => issue.message).join("; "));
  } else {
    show(`error ${created.status}: ${created.message}`);
  }
  await refresh();
});

/** The change feed (SSE over fetch, typed): every change made anywhere refreshes the list. */
async function follow(): Promise<void> {
  const feed = await api.get("/api/notes/changes");
  if (!feed.ok) {
    live.textContent = `live: off (${feed.status})`;
    return;
  }
  live.textContent = "live: on";
  let seen = 0;
  for await (const change of feed.data) {
    seen += 1;
    live.textContent = `live: ${seen} change${seen === 1 ? "" : "s"}, last ${change.event} "${change.data.title}"`;
    await refresh();
  }
}

void refresh();
void follow();
