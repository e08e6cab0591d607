import type { Identity } from "../auth/identity.ts";
import type { ParsedForm } from "../body/form-types.ts";
import type { Session } from "../sessions/session.ts";
import type { UploadTicket } from "../uploads/gate.ts";

/**
 * What a `Request` holds only for some requests (docs/performance.md, "Issue 32, fourth pass: the
 * request side"): a method a middleware set, the identity, the validated body, the session, the
 * parsed form, the cookies, the client's address, args, state, the id, an upload ticket. Most
 * requests use none of them, so they live here, in one object made on the first write (or the
 * first read that must keep something), and the per-request constructor stores only what every
 * request needs: each field a class initialises costs ~12 instructions per request.
 */
export class RequestExtras {
  /** A method set on the request (`request.method = …`); `undefined`: Bun's request's own. */
  method: string | undefined = undefined;
  identity: Identity<object> | null = null;
  parsedBody: unknown = undefined;
  session: Session | null = null;
  parsedForm: ParsedForm | null = null;
  cookies: Record<string, string> | null = null;
  /** `undefined`: not looked up yet (`null` is an answer: no address). */
  ip: string | null | undefined = undefined;
  args: unknown = null;
  state: Record<string, unknown> | null = null;
  id: string | null = null;
  uploadTicket: UploadTicket | null = null;
}
