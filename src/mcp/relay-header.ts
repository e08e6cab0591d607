/**
 * The header a relayed `/mcp` request carries to the process that owns its
 * session (src/mcp/process-relay.ts on one machine, src/mcp/redis-sessions.ts
 * across machines). A request that has it is answered where it lands and
 * never relayed again: a session the owner no longer holds gets the owner's
 * 404, not a loop. A client sending it only gives up the relay (404).
 */
export const RELAYED_HEADER = "x-webfw-mcp-relayed";

/**
 * The client's address (`request.ipAddr` where the request arrived), carried with a relayed
 * request: the owner answers it with no socket of the client's, and a route called as a tool
 * there is rate-limited by this address (docs/mcp-route-tools.md). Read only by the relays'
 * own servers (a Unix socket of this machine's processes, the Redis channel): the same header
 * sent by a client to the public port is never believed.
 */
export const RELAYED_CLIENT_HEADER = "x-webfw-mcp-client";

/** Sets (or removes) the client-address header on a request about to be relayed. */
export function carryClient(headers: Headers, address: string | null): void {
  if (address === null) headers.delete(RELAYED_CLIENT_HEADER);
  else headers.set(RELAYED_CLIENT_HEADER, address);
}

/** The client's address of a request that came through a relay. */
export function relayedClient(headers: Headers): string | null {
  const value = headers.get(RELAYED_CLIENT_HEADER);
  return value === null || value === "" ? null : value;
}
