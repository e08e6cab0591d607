import type { ServerHandle, Webfw } from "../../src/index.ts";

/** Something that sends a request to an app: over a real socket, or in process. */
export interface Client {
  fetch(path: string, init?: RequestInit): Promise<globalThis.Response>;
  close(): Promise<void>;
}

/** A real server on 127.0.0.1, port 0. */
export async function httpClient(app: Webfw): Promise<Client & { server: ServerHandle }> {
  const server = await app.start({ port: 0, host: "127.0.0.1" });
  return {
    server,
    fetch: (path, init) => fetch(`${server.url}${path}`, init),
    close: () => server.stop(true),
  };
}

/** `app.request()`: the whole pipeline without a socket. */
export async function inProcessClient(app: Webfw): Promise<Client> {
  app.resetRequestClient();
  return {
    fetch: (path, init) => app.request(path, init),
    close: async () => {},
  };
}

export const CLIENTS = [
  ["http", httpClient],
  ["in-process", inProcessClient],
] as const;
