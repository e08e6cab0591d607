/**
 * The header a relayed `/mcp` request carries to the process that owns its
 * session (src/mcp/process-relay.ts on one machine, src/mcp/redis-sessions.ts
 * across machines). A request that has it is answered where it lands and
 * never relayed again: a session the owner no longer holds gets the owner's
 * 404, not a loop. A client sending it only gives up the relay (404).
 */
export const RELAYED_HEADER = "x-webfw-mcp-relayed";
