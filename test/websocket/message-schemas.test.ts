/**
 * WebSocket message schemas checked at run time (`route.messages({ client, server })`), with zod
 * (a Standard Schema) and `t` specs, over a real server and Bun's WebSocket client: what the
 * handler receives is the validated value, a message that does not match closes the connection
 * with 1007 naming the issue (or is answered by a handler that catches it), and what the handler
 * sends is checked against the server schema.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { z } from "zod";
import { type ServerHandle, t, ValidationError, Webfw } from "../../src/index.ts";
import { logger, stderrSink } from "../../src/log/logger.ts";
import { connect, start, wsUrl } from "./helpers.ts";

const logged: string[] = [];
let server: ServerHandle;

beforeAll(async () => {
  const app = new Webfw(import.meta.path);
  // A zod schema with a default and a transform: the handler sees the schema's output.
  app
    .websocket("/zod", async (ws) => {
      for (;;) {
        const message = await ws.receiveJson<{ text: string; times: number }>();
        await ws.sendJson({ echo: message.text.repeat(message.times) });
      }
    })
    .messages({
      client: z.object({ text: z.string().min(1).trim(), times: z.number().int().min(1).default(1) }),
      server: z.object({ echo: z.string() }),
    });
  // A handler that catches the mismatch, answers it, and keeps the connection.
  app
    .websocket("/forgiving", async (ws) => {
      for (;;) {
        try {
          const message = await ws.receiveJson<{ n: number }>();
          await ws.sendJson({ doubled: message.n * 2 });
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          await ws.sendJson({ issues: error.issues });
        }
      }
    })
    .messages({ client: t.object({ n: t.int() }) });
  // The server schema catches the handler's own mistake.
  app
    .websocket("/wrong-server", async (ws) => {
      await ws.receiveJson();
      await ws.sendJson({ echo: 42 });
    })
    .messages({ server: z.object({ echo: z.string() }) });
  // A hand-written Standard Schema whose one issue is longer than a close frame's reason.
  app
    .websocket("/long-issue", async (ws) => {
      await ws.receiveJson();
    })
    .messages({
      client: {
        "~standard": {
          version: 1,
          vendor: "test",
          validate: () => ({ issues: [{ message: "é".repeat(100), path: ["field"] }] }),
        },
      },
    });
  // Types only: nothing is checked (as before).
  app
    .websocket("/unchecked", async (ws) => {
      await ws.sendJson(await ws.receiveJson());
    })
    .messages<{ n: number }, { n: number }>();
  server = await start(app);
});

afterAll(async () => {
  await server?.stop(true);
});

describe("client schema", () => {
  test("a matching message reaches the handler as the schema's output (default, trim)", async () => {
    const ws = await connect(wsUrl(server, "/zod"));
    ws.send(JSON.stringify({ text: "  ab  " }));
    expect(await ws.nextJson()).toEqual({ echo: "ab" });
    ws.send(JSON.stringify({ text: "x", times: 3 }));
    expect(await ws.nextJson()).toEqual({ echo: "xxx" });
    ws.close();
  });

  test("a message that does not match closes with 1007 naming the issue", async () => {
    const ws = await connect(wsUrl(server, "/zod"));
    ws.send(JSON.stringify({ text: "", times: 0 }));
    const closed = await ws.closed;
    expect(closed.code).toBe(1007);
    expect(closed.reason).toStartWith("invalid message: text: ");
    expect(closed.reason).toEndWith("(+1 more)");
  });

  test("a wrong type, and not an object at all", async () => {
    for (const [message, reason] of [
      [{ text: 5 }, "invalid message: text: "],
      [[1, 2], "invalid message: "],
    ] as const) {
      const ws = await connect(wsUrl(server, "/zod"));
      ws.send(JSON.stringify(message));
      const closed = await ws.closed;
      expect(closed.code).toBe(1007);
      expect(closed.reason).toStartWith(reason);
    }
  });

  test("invalid JSON is still a 1007 of its own", async () => {
    const ws = await connect(wsUrl(server, "/zod"));
    ws.send("{not json");
    const closed = await ws.closed;
    expect(closed.code).toBe(1007);
    expect(closed.reason).not.toStartWith("invalid message");
  });

  test("a reason longer than a close frame holds is cut to 123 bytes of valid UTF-8", async () => {
    const ws = await connect(wsUrl(server, "/long-issue"));
    ws.send("{}");
    const closed = await ws.closed;
    expect(closed.code).toBe(1007);
    const bytes = new TextEncoder().encode(closed.reason).byteLength;
    expect(bytes).toBeLessThanOrEqual(123);
    expect(bytes).toBeGreaterThan(110);
    expect(closed.reason).toStartWith("invalid message: field: éé");
    expect(closed.reason).toEndWith("é...");
  });

  test("a handler may catch ValidationError, answer the issues and go on", async () => {
    const ws = await connect(wsUrl(server, "/forgiving"));
    ws.send(JSON.stringify({ n: "seven" }));
    expect(await ws.nextJson()).toEqual({ issues: [{ path: "n", message: expect.any(String) }] });
    ws.send(JSON.stringify({ n: 21 }));
    expect(await ws.nextJson()).toEqual({ doubled: 42 });
    ws.send(JSON.stringify({}));
    const { issues } = await ws.nextJson<{ issues: { path: string }[] }>();
    expect(issues.map((issue) => issue.path)).toEqual(["n"]);
    ws.close();
  });

  test("without schemas (types only) nothing is checked", async () => {
    const ws = await connect(wsUrl(server, "/unchecked"));
    ws.send(JSON.stringify({ anything: ["goes"] }));
    expect(await ws.nextJson()).toEqual({ anything: ["goes"] });
    ws.close();
  });
});

describe("server schema", () => {
  test("a message the handler sends that does not match: nothing sent, 1011, logged", async () => {
    logger.setSink((line) => {
      logged.push(line);
    });
    try {
      const ws = await connect(wsUrl(server, "/wrong-server"));
      ws.send("{}");
      const closed = await ws.closed;
      expect(closed.code).toBe(1011);
      expect(ws.pending()).toBe(0);
    } finally {
      logger.setSink(stderrSink);
    }
    expect(logged.join("\n")).toContain("does not match the route's server schema (echo:");
  });
});

describe("registration", () => {
  test("something that is not a schema is refused when the route is declared", () => {
    const app = new Webfw(import.meta.path);
    const route = app.websocket("/x", async () => {});
    expect(() => route.messages({ client: { parse: () => 1 } as never })).toThrow(
      "messages of WebSocket /x: client must be a Standard Schema or a t spec",
    );
    expect(() => route.messages(null as never)).toThrow(TypeError);
  });
});
