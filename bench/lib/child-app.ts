/**
 * For the bench scripts that start a generated app as a child process (mcp-cost, mcp-relay,
 * ws-schemas): the port it prints (`port N` on stdout), and an MCP session opened by hand.
 */
import { initializeMessage } from "../../test/mcp/helpers/raw-session.ts";

/** Waits for the child's `port N` line; `what` names the child in the error when it exits first. */
export async function portOf(proc: ReturnType<typeof Bun.spawn>, what = "the app"): Promise<number> {
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  let out = "";
  while (!/port \d+/.test(out)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`${what} exited before printing its port: ${out}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return Number(/port (\d+)/.exec(out)?.[1]);
}

/** The headers of MCP calls over Streamable HTTP (JSON or SSE answers). */
export const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
};

/** Opens an MCP session at `url` (`initialize`, then `notifications/initialized`); its id. */
export async function openMcpSession(url: string): Promise<string> {
  const opened = await fetch(url, {
    method: "POST",
    headers: MCP_HEADERS,
    body: JSON.stringify(initializeMessage({ client: "bench" })),
  });
  await opened.text();
  const session = opened.headers.get("mcp-session-id");
  if (session === null) throw new Error(`initialize answered ${opened.status} without a session`);
  await (
    await fetch(url, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-session-id": session },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    })
  ).text();
  return session;
}
