/**
 * MCP sessions are bound to the identity that initialized them (issue 31): a
 * session alice opened is a 404 for bob and for an anonymous caller, for calls,
 * the GET stream, a `Last-Event-ID` resumption and DELETE, and none of those
 * disturbs it; a refreshed token of the same user keeps it. The same across
 * processes and machines: test/mcp/processes.test.ts, test/mcp/machines.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Request } from "../../src/index.ts";
import { AuthenticationHandler, Identity, t, Webfw } from "../../src/index.ts";
import type { ServerHandle } from "../../src/launch/server.ts";
import { callTool, type McpHeaders, openSession } from "./helpers/raw-session.ts";

/** Tokens and their claims: two tokens of alice (a refresh changes `exp`), one of bob. */
const TOKENS: Record<string, Record<string, unknown>> = {
  "alice-1": { sub: "alice", exp: 1 },
  "alice-2": { sub: "alice", exp: 2 },
  bob: { sub: "bob", exp: 1 },
  team: { team: "blue", exp: 1 },
};

class TokenAuth extends AuthenticationHandler {
  authenticate(request: Request) {
    const claims = TOKENS[this.tokenGetter.getToken(request) ?? ""];
    return claims ? new Identity({ claims }) : null;
  }
}

let server: ServerHandle;
let url: string;
const app = new Webfw(import.meta.path);
app.configureAuthentication(new TokenAuth());
app.mcp.tool(
  async ({ ms }, ctx) => {
    await ctx.progress(1, 2, "started");
    await Bun.sleep(ms);
    return `done for ${String(ctx.identity?.claims.sub ?? "anonymous")}`;
  },
  { name: "slow", args: { ms: t.int().min(0).max(5000) } },
);

beforeAll(async () => {
  server = await app.start({ port: 0, host: "127.0.0.1", handleSignals: false });
  url = `http://127.0.0.1:${server.port}/mcp`;
});
afterAll(async () => {
  await server.stop();
});

function as(token: string | null): Record<string, string> {
  return token === null ? {} : { authorization: `Bearer ${token}` };
}

const open = (token: string | null) => openSession(url, as(token));

const call = (session: McpHeaders, token: string | null, id = 1, ms = 0) =>
  callTool(url, { ...session, ...as(token) }, "slow", { ms }, { id, meta: { progressToken: id } });

/** The `id:` of the first SSE event with data (the progress notification) of an answer. */
async function firstEventId(response: Response): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let seen = "";
  while (!/id: ?\S+\ndata: ?\{/.test(seen)) {
    const { done, value } = await reader.read();
    if (done) break;
    seen += new TextDecoder().decode(value);
  }
  await reader.cancel().catch(() => undefined);
  return /id: ?(\S+)\ndata: ?\{/.exec(seen)?.[1] ?? "";
}

/** Every way to use a session: a call, the GET stream, a resumption, DELETE. Their statuses. */
async function everyUse(session: Record<string, string>, token: string | null, lastEventId: string) {
  const statuses: Record<string, number> = {};
  const called = await call(session, token, 9);
  statuses.call = called.status;
  await called.body?.cancel();
  const stream = await fetch(url, { headers: { ...session, ...as(token), accept: "text/event-stream" } });
  statuses.get = stream.status;
  await stream.body?.cancel();
  const resumed = await fetch(url, {
    headers: { ...session, ...as(token), accept: "text/event-stream", "last-event-id": lastEventId },
  });
  statuses.resume = resumed.status;
  await resumed.body?.cancel();
  const deleted = await fetch(url, { method: "DELETE", headers: { ...session, ...as(token) } });
  statuses.delete = deleted.status;
  await deleted.body?.cancel();
  return statuses;
}

const NOT_FOUND = { call: 404, get: 404, resume: 404, delete: 404 };

describe("MCP sessions bound to their identity", () => {
  test("alice's session is a 404 for bob and for an anonymous caller, and stays alice's", async () => {
    const session = await open("alice-1");
    const eventId = await firstEventId(await call(session, "alice-1", 1, 10));
    expect(eventId).not.toBe("");
    expect(await everyUse(session, "bob", eventId)).toEqual(NOT_FOUND);
    expect(await everyUse(session, null, eventId)).toEqual(NOT_FOUND);
    // An invalid token is no identity either.
    expect(await everyUse(session, "forged", eventId)).toEqual(NOT_FOUND);
    const body = await (await call(session, "alice-1", 2)).text();
    expect(body).toContain("done for alice");
    // A refreshed token (another `exp`) is still alice: the session, its stream and its log are hers.
    const resumed = await fetch(url, {
      headers: { ...session, ...as("alice-2"), accept: "text/event-stream", "last-event-id": eventId },
    });
    expect(resumed.status).toBe(200);
    await resumed.body?.cancel();
    const deleted = await fetch(url, { method: "DELETE", headers: { ...session, ...as("alice-2") } });
    expect(deleted.status).toBe(200);
  });

  test("an anonymous session is a 404 for any identity", async () => {
    const session = await open(null);
    const eventId = await firstEventId(await call(session, null, 1, 10));
    expect(await everyUse(session, "alice-1", eventId)).toEqual(NOT_FOUND);
    const again = await call(session, null, 3);
    expect(again.status).toBe(200);
    expect(await again.text()).toContain("done for anonymous");
  });

  test("an identity without sub/user/id is bound by its claims (less the per-token ones)", async () => {
    const session = await open("team");
    const mine = await call(session, "team", 1);
    expect(mine.status).toBe(200);
    await mine.body?.cancel();
    const theirs = await call(session, "bob", 2);
    expect(theirs.status).toBe(404);
    expect((await theirs.json()).error.code).toBe(-32001);
  });
});
