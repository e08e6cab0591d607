/**
 * MCP sessions across `--processes N` on one machine. A session lives in the
 * process that answered its `initialize`; with `reusePort` the kernel spreads
 * connections over the processes, so a session's next POST, its GET stream, a
 * client's answer to a sampling request or a resumption may reach another one.
 *
 * Each supervised process therefore listens on a Unix socket of its own, in a
 * folder named after the supervisor, and names itself in the ids of the
 * sessions it opens (`p<slot>.<uuid>`). A request for a session of another
 * slot is passed, headers and body as they came, to that slot's socket, and
 * the answer (JSON or a live SSE stream) is passed back. Resource-update
 * notifications go to every slot the same way. Across machines (with Redis
 * configured) src/mcp/redis-sessions.ts does this job instead.
 */

import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { Request } from "../http/request.ts";
import type { SessionRelay } from "./http.ts";
import { carryClient, RELAYED_HEADER as RELAYED, relayedClient } from "./relay-header.ts";

const NOTIFY_PATH = "/__webfw_mcp/notify";

/** The socket folder of this supervisor's processes. */
function folder(supervisorPid: number): string {
  return join(tmpdir(), `webfw-mcp-${supervisorPid}`);
}

function socketPath(supervisorPid: number, slot: string): string {
  return join(folder(supervisorPid), `slot-${slot}.sock`);
}

/** The slot a session id names, or null for an id this relay did not make. */
function ownerOf(sessionId: string): string | null {
  const match = /^p(\d{1,4})\./.exec(sessionId);
  return match ? (match[1] as string) : null;
}

export interface RelayTarget {
  /** Answers a relayed `/mcp` request as if it had arrived here (the session is local now). */
  handle(request: Request, body: Uint8Array | undefined): Promise<globalThis.Response>;
  /** Tells this process's subscribed sessions that `uri` changed. */
  notifyLocal(uri: string): Promise<void>;
}

export class ProcessRelay {
  private server: Server<unknown> | null = null;
  private readonly path: string;

  constructor(
    private readonly supervisorPid: number,
    private readonly slot: string,
    private readonly target: RelayTarget,
  ) {
    this.path = socketPath(supervisorPid, slot);
  }

  /** Session ids of this process: the slot, then a random UUID. */
  newId = (): string => `p${this.slot}.${crypto.randomUUID()}`;

  start(): void {
    mkdirSync(folder(this.supervisorPid), { recursive: true, mode: 0o700 });
    rmSync(this.path, { force: true }); // a socket left by a crashed process of the same slot
    this.server = Bun.serve({
      unix: this.path,
      fetch: async (raw) => {
        const url = new URL(raw.url);
        if (url.pathname === NOTIFY_PATH) {
          await this.target.notifyLocal(await raw.text());
          return new Response(null, { status: 204 });
        }
        const body = raw.method === "POST" ? new Uint8Array(await raw.arrayBuffer()) : undefined;
        const request = new Request(raw, {});
        // The client's address, as the process it reached saw it (this socket is only ours).
        request.ipAddr = relayedClient(raw.headers);
        return this.target.handle(request, body);
      },
    });
  }

  stop(): void {
    this.server?.stop(true);
    this.server = null;
    rmSync(this.path, { force: true });
  }

  /** Passes a request for another slot's session there; null when the id names no live slot. */
  readonly relay: SessionRelay = async (request, sessionId, body) => {
    const owner = ownerOf(sessionId);
    // A request already relayed once is never relayed again: the owner answers 404 itself.
    if (owner === null || owner === this.slot || request.raw.headers.has(RELAYED)) return null;
    const headers = new Headers(request.raw.headers);
    headers.set(RELAYED, this.slot);
    carryClient(headers, request.ipAddr);
    const init: RequestInit & { unix: string } = {
      method: request.raw.method,
      headers,
      unix: socketPath(this.supervisorPid, owner),
      signal: request.raw.signal,
    };
    if (body !== undefined) init.body = body as Uint8Array<ArrayBuffer>;
    try {
      const answer = await fetch(`http://localhost${new URL(request.raw.url).pathname}`, init);
      const out = new Headers(answer.headers);
      out.delete("content-length"); // the body is re-streamed; Bun sets the framing itself
      return new Response(answer.body, { status: answer.status, headers: out });
    } catch {
      // The owner is gone (restarted by the supervisor): its sessions went with it.
      return null;
    }
  };

  /** Sends a resource update to every other slot (each tells its own subscribed sessions). */
  async broadcast(uri: string): Promise<void> {
    let slots: string[];
    try {
      slots = readdirSync(folder(this.supervisorPid))
        .map((name) => /^slot-(\d+)\.sock$/.exec(name)?.[1])
        .filter((slot): slot is string => slot !== undefined && slot !== this.slot);
    } catch {
      return;
    }
    await Promise.all(
      slots.map((slot) =>
        fetch(`http://localhost${NOTIFY_PATH}`, {
          method: "POST",
          body: uri,
          unix: socketPath(this.supervisorPid, slot),
        } as RequestInit).catch(() => undefined),
      ),
    );
  }
}
