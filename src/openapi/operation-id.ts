/** `GET /users/:id` → `get_users_id`: stable, readable, unique in the document. */
export function uniqueId(method: string, path: string, used: Set<string>): string {
  const words = path
    .split("/")
    .map((segment) => segment.replace(/[^A-Za-z0-9]+/g, "_").replace(/^_+|_+$/g, ""));
  const stem = [method.toLowerCase(), ...words.filter((word) => word !== "")].join("_");
  const base = stem === method.toLowerCase() ? `${stem}_root` : stem;
  let id = base;
  for (let n = 2; used.has(id); n++) id = `${base}_${n}`;
  used.add(id);
  return id;
}
