/**
 * Response contracts (docs/responses.md, "Response contracts"): a route that
 * declares `responses: { 200: schema }` sends only what the schema declares,
 * checked at run time. The user row below carries a password hash; the answer
 * never does. A handler that breaks its contract gets a 500 and a log line
 * naming the route and the field, not the value.
 *
 *   bun examples/response-contracts.ts --workers 2
 *   curl localhost:8080/users/1            # {"id":1,"name":"Ada","roles":["admin"]}: no passwordHash
 *   curl localhost:8080/profiles/1         # the same with a zod schema (zod strips unknown keys)
 *   curl -i localhost:8080/broken          # 500; the log says: path=id expected="an integer"
 *   curl localhost:8080/lenient            # mode "log": sent stripped, and logged
 */
import { z } from "zod";
import { t, Webfw } from "../src/index.ts";

// `/docs` is Scalar's API reference here (docs/openapi.md): the contracts show as response schemas.
const app = new Webfw(import.meta.path, {
  errors: "problem",
  openapi: { title: "Users API", docsUi: "scalar" },
});

/** A row as a database driver returns it: more columns than the API may show. */
function userRow(id: number) {
  return {
    id,
    name: "Ada",
    email: null as string | null,
    passwordHash: "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA",
    roles: [{ name: "admin", grantedBy: "root" }],
  };
}

const User = t.object({
  id: t.int(),
  name: t.str(),
  // Optional: a NULL column is left out of the answer, as `t` reads null on input.
  email: t.optional(t.str()),
  roles: t.list(t.object({ name: t.str() })),
});

app.get("/users/:id", ({ args }) => userRow(args.id), {
  args: { id: t.int() },
  responses: { 200: User, 404: "no such user" },
});

const Profile = z.object({ id: z.number().int(), name: z.string() });
// Offloaded to a Worker with `--workers`: the check runs there, beside the handler.
app.get("/profiles/:id", ({ args }) => userRow(args.id), {
  args: { id: t.int() },
  responses: { 200: Profile },
  offload: true,
});

// `[body, 201]` is checked against the 201 schema.
app.post("/users", () => [userRow(2), 201] as const, {
  responses: { 201: { description: "Created", schema: User } },
});

app.get("/broken", () => ({ ...userRow(3), id: "three" }), { responses: { 200: User } });

app.get("/lenient", () => ({ ...userRow(4), name: 42 }), {
  responses: { 200: User },
  responseCheck: "log",
});

export default app;

if (import.meta.main) await app.start();
