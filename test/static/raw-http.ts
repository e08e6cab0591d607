/** The raw TCP client of the security suite, under the names these tests use. */
import { type RawReply, rawExchange } from "../security/raw-client.ts";

export { rawGet } from "../security/raw-client.ts";
export type RawResponse = RawReply;

/** Sends bytes exactly as given (fetch would normalise `..`, `%2e` and backslashes) and reads the reply. */
export function rawRequest(port: number, request: string | Uint8Array, waitMs = 2000): Promise<RawResponse> {
  return rawExchange(port, request, { waitMs });
}
