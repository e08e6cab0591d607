/**
 * The pub/sub topic of a connection: the route's pattern and its decoded path
 * parameters, so `/chat/:room` broadcasts per room. Identical in every
 * process, which the Redis relay relies on.
 */
export function topicOf(pattern: string, names: string[], params: Record<string, string>): string {
  const base = `webfw:ws:${pattern}`;
  // JSON keeps the encoding injective: no parameter value can forge another one's topic.
  return names.length === 0 ? base : `${base}${JSON.stringify(names.map((name) => params[name] ?? ""))}`;
}
