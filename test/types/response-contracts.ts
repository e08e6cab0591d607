/**
 * Type tests of response contracts in webfw/client (docs/responses.md), checked by
 * `tsc --noEmit -p .`; never run. A route that declares a response schema is typed by the
 * schema's output, not by what its handler returns: the server sends only what the schema
 * declares. A wrong assertion fails to compile (`@ts-expect-error` fails when the line compiles).
 */

import { t, Webfw } from "webfw";
import { client } from "webfw/client";
import { z } from "zod";

type Equals<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;
function assertType<_T extends true>(): void {}

const app = new Webfw(import.meta.path);
const row = { id: 1, name: "Ada", passwordHash: "x", at: new Date() };
const User = t.object({ id: t.int(), name: t.str(), email: t.optional(t.str()) });

const routes = {
  user: app.get("/users/:id", () => row, { responses: { 200: User, 404: "no such user" } }),
  profile: app.get("/profile", () => row, { responses: { 200: z.object({ id: z.number(), at: z.date() }) } }),
  created: app.post("/users", () => [row, 201] as const, {
    responses: { 201: { description: "Created", schema: User } },
  }),
  documented: app.get("/doc", () => row, {
    responses: { 200: { description: "JSON Schema only", schema: { type: "object" } } },
  }),
  plain: app.get("/plain", () => row),
};

const api = client<typeof routes>("http://localhost:8080");

export async function contracts(): Promise<void> {
  const user = await api.get("/users/:id", { params: { id: "1" } });
  if (user.ok) {
    assertType<Equals<typeof user.data, { id: number; name: string; email?: string }>>();
    // @ts-expect-error: the hash is not in the contract, so the client cannot see it
    user.data.passwordHash;
  } else assertType<Equals<typeof user.status, 404 | 500>>();

  const profile = await api.get("/profile");
  // A zod date output arrives as the string JSON makes of it.
  if (profile.ok) assertType<Equals<typeof profile.data, { id: number; at: string }>>();

  const created = await api.post("/users");
  if (created.ok) assertType<Equals<typeof created.data, { id: number; name: string; email?: string }>>();

  // A plain JSON Schema is documentation only: the handler's type stays.
  const documented = await api.get("/doc");
  if (documented.ok) assertType<Equals<typeof documented.data.passwordHash, string>>();
  const plain = await api.get("/plain");
  if (plain.ok) assertType<Equals<typeof plain.data.at, string>>();
}

export async function wrongAssertions(): Promise<void> {
  const user = await api.get("/users/:id", { params: { id: "1" } });
  if (user.ok) {
    // @ts-expect-error: the answer is the contract's type, not the handler's row
    assertType<Equals<typeof user.data, { id: number; name: string; passwordHash: string; at: string }>>();
    // @ts-expect-error: id is a number
    const id: string = user.data.id;
    void id;
  }
}
