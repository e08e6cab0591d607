/**
 * webfw/client against a real server on port 0 (and the same calls in process through
 * `testClient`): URLs from path patterns, args as query strings, JSON bodies, every kind
 * of answer (JSON, text, 204, bytes, streams, SSE) and the error union's statuses and
 * messages. Types of these calls are checked by `tsc` (test/types/client-*.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  type Client,
  ClientInputError,
  client,
  ResponseStream,
  SseStream,
  unwrap,
} from "../../src/client/index.ts";
import { testClient } from "../../src/entries/testing.ts";
import type { ServerHandle } from "../../src/index.ts";
import { startQuiet } from "../helpers/quiet-server.ts";
import * as api from "./fixtures/api.ts";

type Api = typeof api;
const auth = { authorization: "Bearer secret" };

let server: ServerHandle;
let remote: Client<Api>;
const sent: string[] = [];

beforeAll(async () => {
  server = await startQuiet(api.app);
  remote = client<Api>(server.url, {
    fetch: (request) => {
      sent.push(`${request.method} ${new URL(request.url).pathname}${new URL(request.url).search}`);
      return fetch(request);
    },
  });
});
afterAll(() => server.stop(true));

for (const [name, make] of [
  ["over HTTP", () => remote],
  ["in process (testClient)", () => testClient<Api>(api.app)],
] as const) {
  describe(`typed calls ${name}`, () => {
    test("text, JSON, 204", async () => {
      const calls = make();
      const hello = await calls.get("/");
      expect(hello.ok && hello.data).toBe("hello");
      expect(hello.status).toBe(200);
      const empty = await calls.get("/empty");
      expect(empty.status).toBe(204);
      expect(empty.ok && empty.data).toBeUndefined();
    });

    test("create, read, list, delete with auth, typed body and args", async () => {
      const calls = make();
      const created = await calls.post("/notes", { body: { title: "milk", tags: ["shop"] }, headers: auth });
      if (!created.ok) throw new Error(`create failed: ${created.status} ${created.message}`);
      expect(created.status).toBe(201);
      // JSON of what the handler returned: the Date as a string, the function gone.
      expect(created.data).toMatchObject({
        title: "milk",
        tags: ["shop"],
        createdAt: "1970-01-01T00:00:00.000Z",
      });
      expect("render" in created.data).toBe(false);

      const read = await calls.get("/notes/:id", { params: { id: created.data.id } });
      expect(read.ok && read.data.title).toBe("milk");

      const listed = await calls.get("/notes", { args: { tag: "shop", limit: 5 } });
      expect(listed.ok && listed.data.map((note) => note.id)).toContain(created.data.id);

      const deleted = await calls.delete("/notes/:id", { params: { id: created.data.id }, headers: auth });
      expect(deleted.status).toBe(204);
      const gone = await calls.get("/notes/:id", { params: { id: created.data.id } });
      expect(gone.ok).toBe(false);
      if (!gone.ok) {
        expect(gone.status).toBe(404);
        expect(gone.message).toBe(`no note ${created.data.id}`);
      }
    });

    test("errors carry their status: 401, 422 with issues, 400 naming the argument, 500 without details", async () => {
      const calls = make();
      const anonymous = await calls.post("/notes", { body: { title: "x" } });
      expect(anonymous.status).toBe(401);

      const invalid = await calls.post("/notes", { body: { title: "" }, headers: auth });
      expect(invalid.ok).toBe(false);
      if (!invalid.ok && invalid.status === 422) {
        expect(invalid.issues.map((issue) => issue.path)).toEqual(["title"]);
      } else throw new Error(`expected 422, got ${invalid.status}`);

      const bad = await calls.get("/notes", { args: { limit: 1000 } });
      expect(bad.status).toBe(400);
      expect(!bad.ok && bad.message).toContain("limit");

      const boom = await calls.get("/boom");
      expect(boom.status).toBe(500);
      expect(!boom.ok && boom.message).not.toContain("secret");
      expect(() => unwrap(boom)).toThrow("500");
    });

    test("path parameters are encoded, wildcards keep their slashes, lists repeat, absent args stay out", async () => {
      const calls = make();
      const echoed = await calls.get("/echo/*rest", {
        params: { rest: "a b/c?d" },
        args: { n: 5, tags: ["x", "y&z"], flag: true },
      });
      if (!echoed.ok) throw new Error(echoed.message);
      expect(echoed.data.rest).toBe("a b/c?d");
      expect(echoed.data.args).toEqual({ n: 5, flag: true, tags: ["x", "y&z"] });
    });

    test("headers: per call, and from the client's options", async () => {
      const calls = make();
      const direct = await calls.get("/headers", { headers: { "x-token": "one" } });
      expect(direct.ok && direct.data.token).toBe("one");
    });

    test("bytes and streams arrive as a ResponseStream", async () => {
      const calls = make();
      const bytes = await calls.get("/bytes");
      if (!bytes.ok) throw new Error(bytes.message);
      expect(bytes.data).toBeInstanceOf(ResponseStream);
      expect([...(await bytes.data.bytes())]).toEqual([1, 2, 3]);

      const chunks = await calls.get("/chunks");
      if (!chunks.ok) throw new Error(chunks.message);
      const lines: string[] = [];
      for await (const line of chunks.data.lines()) lines.push(line);
      expect(lines).toEqual(["one", "two", "three"]);
    });

    test("SSE: typed messages as an async iterator", async () => {
      const calls = make();
      const events = await calls.get("/notes/events", { args: { count: 2 } });
      if (!events.ok) throw new Error(events.message);
      expect(events.data).toBeInstanceOf(SseStream);
      const seen: unknown[] = [];
      for await (const message of events.data) seen.push([message.event, message.data]);
      expect(seen).toEqual([
        ["note", { n: 0, title: "line\nbreak 0" }],
        ["note", { n: 1, title: "line\nbreak 1" }],
        ["message", "done"],
      ]);
    });
  });
}

describe("over HTTP only", () => {
  test("what went on the wire", async () => {
    sent.length = 0;
    await remote.get("/echo/*rest", {
      params: { rest: "a b/c" },
      args: { n: 1, tags: ["p", "q"], when: undefined },
    });
    expect(sent).toEqual(["GET /echo/a%20b/c?n=1&tags=p&tags=q"]);
  });

  test("headers from a function, per request", async () => {
    let count = 0;
    const withToken = client<Api>(server.url, { headers: () => ({ "x-token": `t${++count}` }) });
    const first = await withToken.get("/headers");
    const second = await withToken.get("/headers");
    expect([first.ok && first.data.token, second.ok && second.data.token]).toEqual(["t1", "t2"]);
  });

  test("a trailing slash on the base URL", async () => {
    const calls = client<Api>(`${server.url}/`);
    expect((await calls.get("/")).status).toBe(200);
  });

  test("leaving an SSE stream early closes it", async () => {
    const events = await remote.get("/notes/events", { args: { count: 1000 } });
    if (!events.ok) throw new Error(events.message);
    let seen = 0;
    for await (const _ of events.data) if (++seen === 2) break;
    expect(seen).toBe(2);
  });
});

describe("bad input from the caller is refused before anything is sent", () => {
  test("missing and empty path parameters, a body that is not JSON, a relative base outside a browser", async () => {
    sent.length = 0;
    const untyped = remote as unknown as {
      get(path: string, input?: unknown): Promise<unknown>;
      post(path: string, input?: unknown): Promise<unknown>;
    };
    await expect(untyped.get("/notes/:id", {})).rejects.toThrow(ClientInputError);
    await expect(untyped.get("/notes/:id", { params: { id: "" } })).rejects.toThrow("empty");
    await expect(untyped.post("/notes", { body: undefined })).rejects.toThrow("not JSON");
    await expect(untyped.post("/notes", { body: { n: 10n } })).rejects.toThrow();
    expect(sent).toEqual([]);
    expect(() => client<Api>("/api")).toThrow(ClientInputError);
  });

  test("a base URL with a path keeps it; query and fragment of the base are dropped", async () => {
    const urls: string[] = [];
    const prefixed = client<Api>("http://example.invalid/api/v1/?x=1#top", {
      fetch: async (request) => {
        urls.push(request.url);
        return new Response("ok", { headers: { "content-type": "text/plain" } });
      },
    });
    await prefixed.get("/notes/:id", { params: { id: 7 } });
    expect(urls).toEqual(["http://example.invalid/api/v1/notes/7"]);
  });

  test("an error body that claims JSON but is not: the text is kept", async () => {
    const broken = client<Api>("http://example.invalid", {
      fetch: async () =>
        new Response("{broken", { status: 500, headers: { "content-type": "application/json" } }),
    });
    const result = await broken.get("/");
    expect(result.ok).toBe(false);
    expect(!result.ok && [result.message, result.body]).toEqual(["{broken", "{broken"]);
  });
});

describe("app.request with a route handle", () => {
  test("typed like the client, using the route's real path (prefixes included)", async () => {
    const created = await api.app.request(api.createNote, {
      body: { title: "from a handle" },
      headers: auth,
    });
    if (!created.ok) throw new Error(created.message);
    expect(created.status).toBe(201);
    expect(api.getNote.path).toBe("/notes/:id");
    expect(String(api.getNote)).toBe("GET /notes/:id");
    const read = await api.app.request(api.getNote, { params: { id: created.data.id } });
    expect(read.ok && read.data.title).toBe("from a handle");
    const missing = await api.app.request(api.getNote, { params: { id: 987654 } });
    expect([missing.status, !missing.ok && missing.message]).toEqual([404, "no note 987654"]);
  });

  test("the untyped form still answers a Web Response", async () => {
    const response = await api.app.request("/");
    expect(response).toBeInstanceOf(Response);
    expect(await response.text()).toBe("hello");
  });
});
