/** `webfw/sessions`: signed-cookie sessions (docs/cookies-and-sessions.md). */
export {
  commitSession,
  type SecretKey,
  Session,
  type SessionData,
  type SessionOptions,
  SessionTooLargeError,
} from "../sessions/index.ts";
export type { SessionBackend } from "../sessions/session.ts";
