/**
 * A load balancer without sticky routing, for tests that stand two servers in
 * for two machines: `startBalancer` is a TCP proxy on 127.0.0.1 that sends each new connection to
 * the next backend in turn and copies bytes both ways (HTTP/1.1, streams and
 * WebSocket upgrades alike). A client that opens a fresh connection per
 * request (fetch with `keepalive: false`) therefore alternates machines.
 * `balancingFetch`/`roundRobinFetch` do the same inside a client's `fetch`.
 */
import type { Socket, TCPSocketListener } from "bun";

interface Pipe {
  /** The other end, once connected; bytes for it wait in `pending` until then. */
  peer: Socket<Pipe> | null;
  pending: Uint8Array[];
  closed: boolean;
  /** The other side ended: end this one once its queue is written. */
  ending: boolean;
}

/** Writes what the socket takes now and keeps the rest for its `drain`. */
function send(socket: Socket<Pipe>, queue: Uint8Array[], bytes: Uint8Array): void {
  if (queue.length > 0) {
    queue.push(bytes);
    return;
  }
  const written = socket.write(bytes);
  if (written < bytes.byteLength) queue.push(bytes.subarray(Math.max(written, 0)));
}

function flush(socket: Socket<Pipe>, queue: Uint8Array[]): void {
  while (queue.length > 0) {
    const bytes = queue[0] as Uint8Array;
    const written = socket.write(bytes);
    if (written < bytes.byteLength) {
      queue[0] = bytes.subarray(Math.max(written, 0));
      return;
    }
    queue.shift();
  }
  if (socket.data.ending) socket.end();
}

export interface Balancer {
  url: string;
  /** Connections sent to each backend, in backend order. */
  counts: number[];
  stop(): void;
}

export function startBalancer(backends: { hostname: string; port: number }[]): Balancer {
  let next = 0;
  const counts = backends.map(() => 0);
  // Bytes a side could not take yet, per socket (the queue of what goes *to* that socket).
  const queues = new WeakMap<Socket<Pipe>, Uint8Array[]>();
  const queueOf = (socket: Socket<Pipe>) => {
    const queue = queues.get(socket) ?? [];
    queues.set(socket, queue);
    return queue;
  };
  const end = (socket: Socket<Pipe>) => {
    socket.data.closed = true;
    const peer = socket.data.peer;
    if (!peer || peer.data.closed) return;
    if (queueOf(peer).length === 0) peer.end();
    else peer.data.ending = true;
  };
  const listener: TCPSocketListener<Pipe> = Bun.listen<Pipe>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        client.data = { peer: null, pending: [], closed: false, ending: false };
        const index = next++ % backends.length;
        counts[index] = (counts[index] ?? 0) + 1;
        const backend = backends[index] as { hostname: string; port: number };
        Bun.connect<Pipe>({
          hostname: backend.hostname,
          port: backend.port,
          socket: {
            open(server) {
              server.data = { peer: client, pending: [], closed: false, ending: false };
              if (client.data.closed) {
                server.end();
                return;
              }
              client.data.peer = server;
              for (const bytes of client.data.pending) send(server, queueOf(server), bytes);
              client.data.pending = [];
            },
            data(_server, bytes) {
              send(client, queueOf(client), new Uint8Array(bytes));
            },
            drain(server) {
              flush(server, queueOf(server));
            },
            close(server) {
              end(server);
            },
            error(server) {
              end(server);
            },
          },
        }).catch(() => client.end());
      },
      data(client, bytes) {
        const peer = client.data.peer;
        if (peer === null) client.data.pending.push(new Uint8Array(bytes));
        else send(peer, queueOf(peer), new Uint8Array(bytes));
      },
      drain(client) {
        flush(client, queueOf(client));
      },
      close(client) {
        end(client);
      },
      error(client) {
        end(client);
      },
    },
  });
  return {
    url: `http://127.0.0.1:${listener.port}`,
    counts,
    stop: () => listener.stop(true),
  };
}

/**
 * The same balancing in the client, for an SDK client's `fetch` option: each request to the server
 * `pick` names (by the request's method), on a fresh connection; `seen` counts where each went.
 */
export function balancingFetch(
  pick: (method: string) => { url: string },
  seen: Map<string, number> = new Map(),
) {
  return (input: string | URL | globalThis.Request, init?: RequestInit) => {
    const server = pick(init?.method ?? "GET");
    const url = new URL(input instanceof Request ? input.url : String(input));
    const target = new URL(url.pathname + url.search, server.url);
    seen.set(server.url, (seen.get(server.url) ?? 0) + 1);
    const headers = new Headers(init?.headers);
    headers.set("connection", "close");
    return fetch(target, { ...init, headers, keepalive: false });
  };
}

/** Each request to the next server in turn. */
export function roundRobinFetch(servers: { url: string }[], seen?: Map<string, number>) {
  let next = 0;
  return balancingFetch(() => servers[next++ % servers.length] as { url: string }, seen);
}
