/**
 * Type tests of webfw/client, checked by `tsc --noEmit -p .` (CI's "types" step); never run.
 * Correct calls compile with the result types asserted exactly; wrong calls must fail to
 * compile (`@ts-expect-error` fails the check when the line compiles).
 */
import { type ClientFailure, client, type Jsonify, type ResponseStream, type SseStream } from "webfw/client";
import type * as Api from "../client/fixtures/api.ts";

type Equals<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;
function assertType<_T extends true>(): void {}

const api = client<typeof Api>("http://localhost:8080");

export async function correctCalls(): Promise<void> {
  const note = await api.get("/notes/:id", { params: { id: 1 } });
  if (note.ok) {
    assertType<Equals<typeof note.data, { id: number; title: string; tags: string[]; createdAt: string }>>();
  } else {
    // 400: `id` is a typed argument; 404: declared in `responses`; 500: always.
    assertType<Equals<typeof note.status, 400 | 404 | 500>>();
    assertType<Equals<typeof note.message, string>>();
  }

  const created = await api.post("/notes", {
    body: { title: "x", tags: ["a"] },
    headers: { authorization: "Bearer t" },
  });
  if (created.ok) assertType<Equals<typeof created.data.createdAt, string>>();
  else {
    assertType<Equals<typeof created.status, 400 | 401 | 413 | 415 | 422 | 500>>();
    if (created.status === 422)
      assertType<Equals<typeof created.issues, { path: string; message: string }[]>>();
  }

  const list = await api.get("/notes", { args: { tag: "x" } });
  if (list.ok) assertType<Equals<(typeof list.data)[number]["id"], number>>();
  await api.get("/notes"); // every argument has a default or is optional: no input needed

  const hello = await api.get("/");
  if (hello.ok) assertType<Equals<typeof hello.data, string>>();
  if (!hello.ok) assertType<Equals<typeof hello, ClientFailure<500>>>();

  const empty = await api.get("/empty");
  if (empty.ok) assertType<Equals<typeof empty.data, undefined>>();

  const bytes = await api.get("/bytes");
  if (bytes.ok) assertType<Equals<typeof bytes.data, ResponseStream>>();
  const chunks = await api.get("/chunks");
  if (chunks.ok) assertType<Equals<typeof chunks.data, ResponseStream>>();

  const events = await api.get("/notes/events");
  if (events.ok) {
    assertType<Equals<typeof events.data, SseStream<{ n: number; title: string } | string>>>();
  }

  const echo = await api.get("/echo/*rest", { params: { rest: "a/b" }, args: { n: 1, tags: [] } });
  if (echo.ok) {
    assertType<Equals<typeof echo.data.rest, string>>();
    assertType<Equals<typeof echo.data.args, { n: number; flag: boolean; tags: string[]; when?: string }>>();
  }

  await api.delete("/notes/:id", { params: { id: 3 }, signal: AbortSignal.timeout(1000) });
}

export async function wrongCalls(): Promise<void> {
  // @ts-expect-error: missing path parameter
  await api.get("/notes/:id", {});
  // @ts-expect-error: missing input altogether (the path has a parameter)
  await api.get("/notes/:id");
  // @ts-expect-error: the path parameter is a typed int
  await api.get("/notes/:id", { params: { id: "one" } });
  // @ts-expect-error: wrong arg type
  await api.get("/notes", { args: { limit: "5" } });
  // @ts-expect-error: unknown arg
  await api.get("/notes", { args: { sort: "asc" } });
  // @ts-expect-error: missing required arg `n`
  await api.get("/echo/*rest", { params: { rest: "x" } });
  // @ts-expect-error: wrong body (title is a string)
  await api.post("/notes", { body: { title: 5 } });
  // @ts-expect-error: missing body
  await api.post("/notes", {});
  // @ts-expect-error: unknown route
  await api.get("/nope");
  // @ts-expect-error: the route exists for another method only
  await api.put("/notes", { body: { title: "x" } });
  // @ts-expect-error: a body on a route that declares none
  await api.get("/", { body: { x: 1 } });
  const note = await api.get("/notes/:id", { params: { id: 1 } });
  if (note.ok) {
    // @ts-expect-error: functions do not survive JSON
    note.data.render();
    // @ts-expect-error: a Date arrives as a string
    note.data.createdAt.getTime();
  } else {
    // @ts-expect-error: this route cannot answer 401 (no authRequired)
    if (note.status === 401) void note;
  }
}

// Jsonify on its own: what JSON.stringify makes of a value.
interface Sample {
  when: Date;
  maybe?: number;
  gone: undefined;
  fn: () => void;
  list: (string | undefined)[];
  nested: { big: Map<string, number>; at: Date[] };
}
assertType<
  Equals<
    Jsonify<Sample>,
    // biome-ignore lint/complexity/noBannedTypes: JSON.stringify(new Map()) is "{}"
    { when: string; maybe?: number; list: (string | null)[]; nested: { big: {}; at: string[] } }
  >
>();

// app.request with a route handle: the same input and result types, no module type needed.
export async function inProcess(): Promise<void> {
  const { app, getNote, createNote } = await import("../client/fixtures/api.ts");
  const read = await app.request(getNote, { params: { id: 2 } });
  if (read.ok) assertType<Equals<typeof read.data.createdAt, string>>();
  else assertType<Equals<typeof read.status, 400 | 404 | 500>>();
  // @ts-expect-error: wrong body
  await app.request(createNote, { body: { title: false } });
  // @ts-expect-error: missing params
  await app.request(getNote);
  const raw: Response = await app.request("/notes");
  void raw;
}

// WebSocket routes: typed connections from `.messages<Client, Server>()`.
export async function sockets(): Promise<void> {
  const chat = api.ws("/chat/:room", { params: { room: "lobby" }, args: { name: "ada" } });
  await chat.send({ text: "hi" });
  const message = await chat.receive();
  if (message && "from" in message)
    assertType<Equals<typeof message, { from: string; text: string; room: string; n: number }>>();
  for await (const received of chat) {
    if ("error" in received) assertType<Equals<typeof received.error, string>>();
  }
  const shout = api.ws("/shout");
  await shout.send("text");
  for await (const text of shout) assertType<Equals<typeof text, string>>();
  // @ts-expect-error: the chat takes { text }, not a number
  await chat.send(5);
  // Schemas (`messages({ client, server })`): the client sends the client schema's input (a
  // defaulted field may be left out) and receives the server schema's output.
  const scores = api.ws("/scores");
  await scores.send({ player: "ada" });
  await scores.send({ player: "ada", points: 3 });
  const score = await scores.receive();
  if (score) assertType<Equals<typeof score, { player: string; total: number }>>();
  // @ts-expect-error: points must be a number
  await scores.send({ player: "ada", points: "3" });
  // @ts-expect-error: player is required
  await scores.send({ points: 3 });
  // @ts-expect-error: missing the room
  api.ws("/chat/:room");
  // @ts-expect-error: not a WebSocket route
  api.ws("/notes");
  // @ts-expect-error: a WebSocket route is not an HTTP route
  await api.get("/shout");
}
