/**
 * Client data can never become a dictionary response (docs/security.md,
 * "Client-controlled responses"). The dictionary shape `{ statusCode,
 * description, type?, headers? }` lets a handler pick the status, the content
 * type and headers of its answer; an echo route (`(r) => r.json()`) would hand
 * that choice to whoever sends the body: `text/html` with a script, a
 * `Set-Cookie`, a 302 to anywhere. So every object the framework builds from
 * request data that could carry the shape is marked here, and conversion
 * (src/response/convert.ts) sends a marked object as plain JSON, whatever its keys.
 *
 * Only objects with an own `statusCode` key can take the shape, so only those
 * are marked, and the marking reviver runs only when the text can contain that
 * key (spelled out, or hidden behind a `\u` escape): an ordinary body parses
 * with the plain `JSON.parse`.
 */
const clientObjects = new WeakSet<object>();

const KEY = "statusCode";

function markReviver(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value === "object" && value !== null && Object.hasOwn(value, KEY)) clientObjects.add(value);
  return value;
}

/** `JSON.parse` of client text, marking every object that could look like a dictionary response. */
export function parseClientJson(text: string): unknown {
  // A one-character search first: most bodies hold no backslash, and it costs half of a
  // two-character one (docs/performance.md, "Issue 32, fourth pass: the request side").
  if (!text.includes(KEY) && !(text.includes("\\") && text.includes("\\u"))) return JSON.parse(text);
  return JSON.parse(text, markReviver);
}

/**
 * Marks the objects of a value built from client data by other code (a
 * Standard Schema's output is a new object tree). Depth-bounded like JSON.
 */
export function markClientData(value: unknown, depth = 0): void {
  if (typeof value !== "object" || value === null || depth > 128) return;
  if (Object.hasOwn(value, KEY)) clientObjects.add(value);
  if (Array.isArray(value)) {
    for (const item of value) markClientData(item, depth + 1);
    return;
  }
  for (const key in value) {
    if (Object.hasOwn(value, key)) markClientData((value as Record<string, unknown>)[key], depth + 1);
  }
}

/** True for an object that came from the client (sent as JSON, never as a dictionary response). */
export function isClientData(value: object): boolean {
  return clientObjects.has(value);
}
