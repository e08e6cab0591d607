/**
 * Cursor pagination of the list methods. A cursor is an opaque string to the
 * client; here it is the offset of the next item, base64url-encoded with a
 * prefix, so a made-up or damaged cursor is told apart from a real one and
 * answered -32602 (the spec's "invalid params" for a bad cursor).
 */

const PREFIX = "webfw:";

export class BadCursorError extends Error {
  constructor(cursor: string) {
    super(`invalid cursor: ${cursor.length > 64 ? `${cursor.slice(0, 64)}…` : cursor}`);
    this.name = "BadCursorError";
  }
}

function encode(offset: number): string {
  return Buffer.from(`${PREFIX}${offset}`).toString("base64url");
}

function decode(cursor: unknown): number {
  if (cursor === undefined) return 0;
  if (typeof cursor !== "string" || cursor === "" || cursor.length > 64)
    throw new BadCursorError(String(cursor));
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  if (!text.startsWith(PREFIX)) throw new BadCursorError(cursor);
  const digits = text.slice(PREFIX.length);
  if (!/^(0|[1-9]\d{0,8})$/.test(digits)) throw new BadCursorError(cursor);
  return Number(digits);
}

/** One page of `items` starting at `cursor`, with `nextCursor` when more follow. */
export function paginate<T>(
  items: readonly T[],
  cursor: unknown,
  pageSize: number,
): { page: T[]; nextCursor?: string } {
  const start = decode(cursor);
  // An offset past the end is a cursor from a list that has since shrunk: an empty last page, not an error.
  const page = items.slice(start, start + pageSize);
  const next = start + pageSize;
  return next < items.length ? { page, nextCursor: encode(next) } : { page };
}
