import { afterAll, afterEach, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { WebSocketDisconnect } from "../../src/entries/websocket.ts";
import {
  AuthenticationHandler,
  HttpError,
  Identity,
  type Request,
  Response,
  type ServerHandle,
  SubRouter,
  t,
  Webfw,
} from "../../src/index.ts";
import { logger } from "../../src/log/logger.ts";
import { connect, rawHandshake, start, type TestClient, within, wsUrl } from "./helpers.ts";

class TokenAuth extends AuthenticationHandler {
  authenticate(request: Request): Identity | null {
    const token = this.tokenGetter.getToken(request);
    return token === "good" ? new Identity({ claims: { user: "ada" } }) : null;
  }
}

/** Things handlers report to the tests. */
const seen = {
  handlerRuns: 0,
  refusedHandlerRan: false,
  closes: [] as { code: number | null; reason: string | null; deps: unknown }[],
  disconnects: [] as { code: number; reason: string }[],
};

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
let disconnected = deferred<WebSocketDisconnect>();

function buildApp(router: "bun" | "js"): Webfw {
  const app = new Webfw(import.meta.path, {
    router,
    openapi: false,
    websocket: { maxPayloadLength: 256 * 1024 },
  });
  app.injectGlobal({ db: "global-db" });
  app.inject({ cache: "app-cache" });
  app.configureAuthentication(new TokenAuth());
  app.setRequestHeader("x-added", "by-app");

  app.websocket("/echo", async (ws) => {
    seen.handlerRuns++;
    for await (const message of ws) {
      if (typeof message === "string") await ws.sendText(message);
      else await ws.sendBytes(message);
    }
  });

  app.websocket("/json", async (ws) => {
    for (;;) {
      const value = await ws.receiveJson<{ n: number }>();
      await ws.sendJson({ doubled: value.n * 2, nested: [value] });
    }
  });

  app.websocket("/bytes", async (ws) => {
    const bytes = await ws.receiveBytes();
    await ws.sendBytes(bytes.slice().reverse());
    const text = await ws.receiveText();
    await ws.sendText(`text:${text}`);
  });

  app
    .websocket("/greet", async (ws) => {
      await ws.sendText("from handler");
      await ws.receiveText();
    })
    .onConnect(
      (ws, { globalDependencies }) =>
        `welcome ${ws.queryParams.get("name", "anon")} (${globalDependencies.db})`,
    );

  app
    .websocket("/silent", async (ws) => {
      await ws.sendText("first from handler");
      await ws.receiveText();
    })
    .onConnect(() => undefined);

  app
    .websocket("/refuse", () => {
      seen.refusedHandlerRan = true;
    })
    .onConnect(async (ws) => {
      await ws.close(4001, "not today");
    })
    .onClose((ws) => {
      seen.closes.push({ code: ws.closeCode, reason: ws.closeReason, deps: null });
    });

  app
    .websocket("/watched", async (ws) => {
      await ws.receiveText();
    })
    .onClose((ws, deps) => {
      seen.closes.push({ code: ws.closeCode, reason: ws.closeReason, deps });
    });

  app.websocket("/deps", async (ws, { globalDependencies, routerDependencies }) => {
    await ws.sendJson({ globalDependencies, routerDependencies });
  });

  app.websocket("/rooms/:room/users/:user", async (ws) => {
    await ws.sendJson({
      pathParams: ws.pathParams,
      query: ws.queryParams.toDict(),
      tag: ws.queryParams.get("tag"),
      header: ws.headers.get("x-custom"),
      added: ws.headers.get("x-added"),
      path: ws.url.path,
      idLooksUnique: typeof ws.id === "string" && ws.id.length >= 16,
    });
  });

  app.websocket("/ids", async (ws) => {
    await ws.sendText(ws.id);
  });

  app.websocket("/chat/:room", async (ws) => {
    await ws.sendText("ready");
    for await (const message of ws) await ws.broadcast(`${ws.pathParams.room}:${message}`);
  });

  app.websocket(
    "/private",
    async (ws) => {
      await ws.sendJson({ identity: ws.identity?.claims ?? null });
    },
    { authRequired: true },
  );

  app.websocket("/maybe", async (ws) => {
    await ws.sendJson({ identity: ws.identity?.claims ?? null });
  });

  app.websocket("/listen", async (ws) => {
    try {
      await ws.receiveText();
    } catch (error) {
      if (error instanceof WebSocketDisconnect) disconnected.resolve(error);
      throw error;
    }
  });

  app.websocket("/queued", async (ws) => {
    await Bun.sleep(150); // The client's messages arrive meanwhile and must wait in order.
    const got: string[] = [];
    for (let i = 0; i < 20; i++) got.push(await ws.receiveText());
    await ws.sendJson(got);
  });

  app.websocket("/returns", async (ws) => {
    await ws.sendText("bye");
  });
  app.websocket("/throws", async () => {
    throw new Error("secret detail");
  });
  app.websocket("/forbidden", async () => {
    throw new HttpError(403, "members only");
  });

  app.websocket(
    "/typed",
    async (ws) => {
      await ws.sendJson(ws.args);
    },
    { args: { count: t.int(), verbose: t.bool().default(false) } },
  );

  // A path with both a GET route and a WebSocket: plain requests get the route.
  app.get("/both", () => "plain GET");
  app.websocket("/both", async (ws) => {
    await ws.sendText("websocket");
  });

  app.beforeRequest("/guarded", (request) => {
    if (request.headers.get("origin") !== "https://good.example") return new Response(403, {}, "bad origin");
  });
  app.websocket("/guarded", async (ws) => {
    await ws.sendText("passed the middleware");
  });

  const api = new SubRouter(import.meta.path, { prefix: "/api" });
  api.inject({ cache: "api-cache" });
  api.websocket("/live/:id", async (ws, { routerDependencies }) => {
    await ws.sendJson({ id: ws.pathParams.id, routerDependencies });
  });
  const v2 = new SubRouter(import.meta.path, { prefix: "/v2" });
  v2.websocket("/feed", async (ws) => {
    await ws.sendText(`feed at ${ws.url.path}`);
  });
  api.includeRouter(v2);
  app.includeRouter(api);
  return app;
}

for (const engine of ["bun", "js"] as const) {
  describe(`WebSocket routes (${engine} router)`, () => {
    let server: ServerHandle;
    const clients: TestClient[] = [];
    const open = async (path: string, headers?: Record<string, string>) => {
      const client = await connect(wsUrl(server, path), headers);
      clients.push(client);
      return client;
    };

    beforeAll(async () => {
      server = await start(buildApp(engine));
    });
    afterEach(() => {
      for (const client of clients.splice(0)) client.close();
    });
    afterAll(async () => {
      await server.stop(true);
    });

    test("echoes text and binary messages", async () => {
      const client = await open("/echo");
      client.send("hello");
      expect(await client.next()).toBe("hello");
      client.send(new Uint8Array([0, 1, 2, 255]));
      expect(await client.next()).toEqual(new Uint8Array([0, 1, 2, 255]));
      client.send("");
      expect(await client.next()).toBe("");
    });

    test("receiveJson parses and sendJson serialises", async () => {
      const client = await open("/json");
      client.send(JSON.stringify({ n: 21 }));
      expect(await client.nextJson()).toEqual({ doubled: 42, nested: [{ n: 21 }] });
    });

    test("receiveBytes and receiveText convert between text and bytes", async () => {
      const client = await open("/bytes");
      client.send("abc"); // text read as bytes
      expect(await client.next()).toEqual(new TextEncoder().encode("cba"));
      client.send(new TextEncoder().encode("héllo")); // UTF-8 bytes read as text
      expect(await client.next()).toBe("text:héllo");
    });

    test("128 KiB frames go both ways, text and binary", async () => {
      const client = await open("/echo");
      const text = "x".repeat(64 * 1024) + "é".repeat(32 * 1024); // 128 KiB of UTF-8
      client.send(text);
      expect(await client.next()).toBe(text);
      const bytes = new Uint8Array(128 * 1024).map((_, i) => (i * 31) & 0xff);
      client.send(bytes);
      expect(await client.next()).toEqual(bytes);
    });

    test("onConnect's string is the first message, with the dependencies", async () => {
      const client = await open("/greet?name=bob");
      expect(await client.next()).toBe("welcome bob (global-db)");
      expect(await client.next()).toBe("from handler");
    });

    test("onConnect returning undefined sends nothing", async () => {
      const client = await open("/silent");
      expect(await client.next()).toBe("first from handler");
    });

    test("closing in onConnect refuses: the handler never runs, onClose still does", async () => {
      seen.closes.length = 0;
      const client = await open("/refuse");
      const event = await within(client.closed);
      expect(event.code).toBe(4001);
      expect(event.reason).toBe("not today");
      await Bun.sleep(20);
      expect(seen.refusedHandlerRan).toBe(false);
      expect(seen.closes).toEqual([{ code: 4001, reason: "not today", deps: null }]);
    });

    test("onClose runs with the close code and the dependencies when the client leaves", async () => {
      seen.closes.length = 0;
      const client = await open("/watched");
      client.close(4100, "leaving");
      await within(client.closed);
      for (let i = 0; i < 50 && seen.closes.length === 0; i++) await Bun.sleep(10);
      expect(seen.closes).toEqual([
        {
          code: 4100,
          reason: "leaving",
          deps: { globalDependencies: { db: "global-db" }, routerDependencies: { cache: "app-cache" } },
        },
      ]);
    });

    test("handlers receive globalDependencies and routerDependencies", async () => {
      const client = await open("/deps");
      expect(await client.nextJson()).toEqual({
        globalDependencies: { db: "global-db" },
        routerDependencies: { cache: "app-cache" },
      });
    });

    test("path params (percent-decoded), query params and headers of the upgrade request", async () => {
      const client = await open("/rooms/r%C3%A9d/users/42?tag=a&tag=b&x=1", { "x-custom": "yes" });
      expect(await client.nextJson()).toEqual({
        pathParams: { room: "réd", user: "42" },
        query: { tag: ["a", "b"], x: ["1"] },
        tag: "b",
        header: "yes",
        added: "by-app",
        path: "/rooms/r%C3%A9d/users/42",
        idLooksUnique: true,
      });
    });

    test("each connection has its own id", async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 5; i++) ids.add(String(await (await open("/ids")).next()));
      expect(ids.size).toBe(5);
    });

    test("broadcast reaches every client of the same path, sender included, and no other room", async () => {
      const room = await Promise.all(Array.from({ length: 5 }, () => open("/chat/blue")));
      const other = await open("/chat/green");
      for (const client of [...room, other]) expect(await client.next()).toBe("ready");
      room[2]?.send("hi all");
      for (const client of room) expect(await client.next()).toBe("blue:hi all");
      other.send("just us");
      expect(await other.next()).toBe("green:just us");
      await Bun.sleep(50);
      for (const client of room) expect(client.pending()).toBe(0);
    });

    test("authRequired refuses the upgrade with 401 before upgrading", async () => {
      const missing = await rawHandshake(server, "/private");
      expect(missing.status).toBe(401);
      expect(missing.headers["www-authenticate"]).toBe("Bearer");
      const wrong = await rawHandshake(server, "/private", { authorization: "Bearer bad" });
      expect(wrong.status).toBe(401);
      await expect(connect(wsUrl(server, "/private"))).rejects.toThrow("handshake");
    });

    test("a valid token upgrades and sets identity", async () => {
      const client = await open("/private", { authorization: "Bearer good" });
      expect(await client.nextJson()).toEqual({ identity: { user: "ada" } });
    });

    test("identity is set on routes without authRequired when a token is sent, else null", async () => {
      expect(await (await open("/maybe", { authorization: "Bearer good" })).nextJson()).toEqual({
        identity: { user: "ada" },
      });
      expect(await (await open("/maybe")).nextJson()).toEqual({ identity: null });
    });

    test("a receive after the peer closed throws WebSocketDisconnect, which ends the handler quietly", async () => {
      disconnected = deferred<WebSocketDisconnect>();
      const errors = spyOn(logger, "error");
      try {
        const client = await open("/listen");
        await Bun.sleep(30); // the handler is now waiting in receiveText()
        client.close(4200, "gone");
        const error = await within(disconnected.promise);
        expect(error).toBeInstanceOf(WebSocketDisconnect);
        expect(error.code).toBe(4200);
        expect(error.reason).toBe("gone");
        await Bun.sleep(30);
        expect(errors).not.toHaveBeenCalled();
      } finally {
        errors.mockRestore();
      }
    });

    test("messages sent before the handler reads are queued, in order", async () => {
      const client = await open("/queued");
      const sent = Array.from({ length: 20 }, (_, i) => `m${i}`);
      for (const message of sent) client.send(message);
      expect(await client.nextJson()).toEqual(sent);
    });

    test("a frame above maxPayloadLength closes with 1009", async () => {
      const client = await open("/echo");
      client.send("y".repeat(256 * 1024 + 1));
      expect((await within(client.closed)).code).toBe(1009);
    });

    test("the connection closes with 1000 when the handler returns", async () => {
      const client = await open("/returns");
      expect(await client.next()).toBe("bye");
      expect((await within(client.closed)).code).toBe(1000);
    });

    test("a handler error closes with 1011 and no details; a 4xx HttpError with 1008 and its message", async () => {
      const errors = spyOn(logger, "error").mockImplementation(() => {});
      try {
        const failing = await open("/throws");
        const event = await within(failing.closed);
        expect(event.code).toBe(1011);
        expect(event.reason).not.toContain("secret");
        expect(errors).toHaveBeenCalledTimes(1);
        const forbidden = await open("/forbidden");
        const refused = await within(forbidden.closed);
        expect([refused.code, refused.reason]).toEqual([1008, "members only"]);
      } finally {
        errors.mockRestore();
      }
    });

    test("invalid JSON closes with 1007 and says why", async () => {
      const client = await open("/json");
      client.send("{not json");
      const event = await within(client.closed);
      expect(event.code).toBe(1007);
      expect(event.reason.toLowerCase()).toContain("json");
    });

    test("invalid UTF-8 read as text closes with 1007", async () => {
      const client = await open("/bytes");
      client.send(new Uint8Array([1]));
      await client.next();
      client.send(new Uint8Array([0xff, 0xfe]));
      expect((await within(client.closed)).code).toBe(1007);
    });

    test("typed args are read before upgrading; a bad value is a 400", async () => {
      const client = await open("/typed?count=3");
      expect(await client.nextJson()).toEqual({ count: 3, verbose: false });
      const bad = await rawHandshake(server, "/typed?count=three");
      expect(bad.status).toBe(400);
      expect(bad.body).toContain("count");
      expect((await rawHandshake(server, "/typed")).status).toBe(400);
    });

    test("a plain GET of a WebSocket path is 426 Upgrade Required", async () => {
      const response = await fetch(`${server.url}/echo`);
      expect(response.status).toBe(426);
      expect(response.headers.get("upgrade")).toBe("websocket");
      expect((await fetch(`${server.url}/echo`, { method: "POST" })).status).toBe(405);
    });

    test("a GET route and a WebSocket can share a path", async () => {
      const response = await fetch(`${server.url}/both`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe("plain GET");
      expect(await (await open("/both")).next()).toBe("websocket");
    });

    test("before-request middlewares run on the upgrade and may refuse it", async () => {
      const refused = await rawHandshake(server, "/guarded", { origin: "https://evil.example" });
      expect(refused.status).toBe(403);
      expect(refused.body).toBe("bad origin");
      const client = await open("/guarded", { origin: "https://good.example" });
      expect(await client.next()).toBe("passed the middleware");
    });

    test("an upgrade request without Sec-WebSocket-Key is a 400", async () => {
      const response = await fetch(`${server.url}/echo`, {
        headers: { upgrade: "websocket", connection: "Upgrade" },
      });
      expect(response.status).toBe(400);
    });

    test("sub-routers: prefixes, nesting and router dependencies", async () => {
      const live = await open("/api/live/7");
      expect(await live.nextJson()).toEqual({ id: "7", routerDependencies: { cache: "api-cache" } });
      expect(await (await open("/api/v2/feed")).next()).toBe("feed at /api/v2/feed");
      expect((await rawHandshake(server, "/live/7")).status).toBe(404);
    });

    test("unknown WebSocket paths are 404", async () => {
      expect((await rawHandshake(server, "/nope")).status).toBe(404);
    });
  });
}

describe("registration", () => {
  test("a second WebSocket on the same path is an error, also through a sub-router", () => {
    const app = new Webfw(import.meta.path);
    app.websocket("/ws", () => {});
    expect(() => app.websocket("/ws/", () => {})).toThrow("already registered");
    const router = new SubRouter(import.meta.path, { prefix: "/ws" });
    router.websocket("/", () => {});
    expect(() => app.includeRouter(router)).toThrow("already registered");
  });

  test("bad handlers, paths and options are refused at registration", () => {
    const app = new Webfw(import.meta.path);
    expect(() => app.websocket("/a", "nope" as unknown as () => void)).toThrow(TypeError);
    expect(() => app.websocket("/a/:x/:x", () => {})).toThrow("duplicate");
    expect(() => app.websocket("/b", () => {}).onConnect(42 as unknown as () => void)).toThrow(TypeError);
    expect(() => new Webfw(import.meta.path, { websocket: { maxPayloadLength: -1 } })).toThrow(
      "maxPayloadLength",
    );
    expect(() => new Webfw(import.meta.path, { websocket: { idleTimeout: 1000 } })).toThrow("idleTimeout");
    expect(() => app.configureBroadcast({ redisUrl: "http://x" })).toThrow("redis://");
  });

  test("authRequired without authentication fails at start", async () => {
    const app = new Webfw(import.meta.path, { openapi: false });
    app.websocket("/ws", () => {}, { authRequired: true });
    await expect(app.build()).rejects.toThrow("no authentication");
  });

  test("the in-process client cannot upgrade: 426", async () => {
    const app = new Webfw(import.meta.path, { openapi: false });
    app.websocket("/ws", () => {});
    const response = await app.request("/ws", { headers: { upgrade: "websocket" } });
    expect(response.status).toBe(426);
  });
});

describe("access log", () => {
  test("an upgrade is logged with 101, a refused one with its status", async () => {
    const app = new Webfw(import.meta.path, { openapi: false });
    app.configureAuthentication(new TokenAuth());
    app.websocket("/logged", async (ws) => {
      await ws.sendText("hi");
    });
    app.websocket("/logged-private", () => {}, { authRequired: true });
    const lines = spyOn(logger, "accessLog").mockImplementation(() => {});
    const server = await app.start({
      port: 0,
      host: "127.0.0.1",
      handleSignals: false,
      argv: [],
      accessLog: true,
    });
    try {
      const client = await connect(wsUrl(server, "/logged"));
      expect(await client.next()).toBe("hi");
      expect((await rawHandshake(server, "/logged-private")).status).toBe(401);
      const logged = lines.mock.calls.map(([method, path, status]) => [method, path, status]);
      expect(logged).toContainEqual(["GET", "/logged", 101]);
      expect(logged).toContainEqual(["GET", "/logged-private", 401]);
      client.close();
    } finally {
      lines.mockRestore();
      await server.stop(true);
    }
  });
});
