/**
 * The compact form of the commonest call and reply between the main thread and a handler Worker
 * (docs/performance.md, "Worker pool"): one string instead of an object. Bun posts a string
 * without the structured-clone walk (an object holding arrays, objects or bytes costs 3-7 µs to
 * clone, a string of the same data ~0.3 µs), and every microsecond either thread spends on a
 * call comes out of the cores the handlers need.
 *
 * A call is plain when it carries nothing but text: no body, no typed args or parsed body, no
 * identity, form, session, state, CSP nonce or trace context, and no line break in the route
 * key, a path parameter or the request id (header values and URLs cannot hold one). A reply is
 * plain when the handler answered a string and left no session or state to carry back. Anything
 * else travels as the structured-clone objects of src/workers/protocol.ts, as before.
 *
 * Call:  id \n route \n url \n method \n ipAddr \n requestId \n k \n (param \n value) × k (\n name \n value)*
 * Reply: id \n text
 */
import type { Request } from "../http/request.ts";
import type { WorkerCall } from "./protocol.ts";

const NO_BYTES = new Uint8Array(0);

/** A string of `request` for the Worker, or `null` when the call needs the object form. */
export function plainCall(id: number, route: string, url: string, request: Request): string | null {
  if (request.bodyBytes.length !== 0 || request.parsedBody !== undefined) return null;
  if (request.identity !== null || request.session !== null || request.form !== null) return null;
  if (!isEmpty(request.args as object) || !isEmpty(request.state) || request.cspNonce !== undefined)
    return null;
  const requestId = request.id;
  if (route.includes("\n") || requestId.includes("\n")) return null;
  let params = "";
  let count = 0;
  const pathParams = request.pathParams;
  for (const name in pathParams) {
    const value = pathParams[name] as string;
    if (name.includes("\n") || value.includes("\n")) return null;
    params += `\n${name}\n${value}`;
    count++;
  }
  let text = `${id}\n${route}\n${url}\n${request.method}\n${request.ipAddr ?? ""}\n${requestId}\n${count}${params}`;
  // Header names and values cannot hold a line break (the Fetch standard refuses CR and LF).
  for (const [name, value] of request.headers.raw) text += `\n${name}\n${value}`;
  return text;
}

/** The call a `plainCall` string stands for, with the defaults of everything it leaves out. */
export function readPlainCall(text: string): WorkerCall {
  const fields = text.split("\n");
  const count = Number(fields[6]);
  const pathParams: Record<string, string> = {};
  let at = 7;
  for (let i = 0; i < count; i++, at += 2) pathParams[fields[at] as string] = fields[at + 1] as string;
  const headers: [string, string][] = [];
  for (; at < fields.length; at += 2) headers.push([fields[at] as string, fields[at + 1] as string]);
  return {
    id: Number(fields[0]),
    route: fields[1] as string,
    url: fields[2] as string,
    method: fields[3] as string,
    headers,
    body: NO_BYTES,
    pathParams,
    args: {},
    parsedBody: undefined,
    identityClaims: null,
    ipAddr: fields[4] === "" ? null : (fields[4] as string),
    form: null,
    session: null,
    state: null,
    requestId: fields[5] as string,
  };
}

/** The string reply to call `id` whose handler answered `text`. */
export function plainReply(id: number, text: string): string {
  return `${id}\n${text}`;
}

/** The call id and the handler's text of a `plainReply` string. */
export function readPlainReply(reply: string): { id: number; text: string } {
  const cut = reply.indexOf("\n");
  return { id: Number(reply.slice(0, cut)), text: reply.slice(cut + 1) };
}

function isEmpty(value: object): boolean {
  for (const _ in value) return false;
  return true;
}
