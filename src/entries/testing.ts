/** `webfw/testing`: the typed client over `app.request`, no socket (docs/client.md, "Tests"). */
export { testClient } from "../client/client.ts";
