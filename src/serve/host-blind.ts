/**
 * Dispatchers that let nothing see the Host before the application's code (the handler, the
 * route's middlewares) does, which finishes the check at its first look (docs/security.md, "Request
 * target"). For them, Bun's native table checks the request from `req.url` alone
 * (`urlRequestProblem`), without building the request's `Headers` object: that object is a fifth
 * of the instructions of a bare `GET /` (bench/instructions.sh). Marked at start, looked up at
 * start only: a request pays nothing for the mark.
 */
const blind = new WeakSet<object>();

/** Marks `dispatcher` as one where only the application's code can look at the Host, through the `Request`. */
export function markHostBlind<T extends object>(dispatcher: T): T {
  blind.add(dispatcher);
  return dispatcher;
}

export function isHostBlind(dispatcher: object): boolean {
  return blind.has(dispatcher);
}
