/**
 * In-process cost of a response contract (docs/responses.md) on a JSON route, without sockets:
 * `bun bench/response-contracts.ts`. Calls the dispatcher Bun's router would call (as
 * bench/http-essentials-micro.ts does) for one route returning a 6-field user row with a nested
 * list of 3 roles, declared as: nothing (no contract: no wrapper), a `t.object` in mode "off"
 * (must equal the first row within noise: no wrapper is built), `t.object` in mode "fail"
 * (checked and stripped), and a zod object (zod's own validation and output). Each variant in its
 * own process, runs in alternation, the fastest of 11 rounds (noise only adds time). Rough
 * figures on a shared machine. `bun bench/response-contracts.ts alone`: the wrapped handler alone,
 * without the dispatcher, a steadier figure for the check itself.
 */
import { z } from "zod";
import { responseContract } from "../src/contracts/enforce.ts";
import { type RouteOptions, t, Webfw } from "../src/index.ts";
import { compareVariants, dispatcherOf, nsPerCall } from "./lib/dispatcher-micro.ts";

const ROUNDS = 11;
const N = Number(process.env.MICRO_N ?? "50000");

const Role = t.object({ name: t.str() });
const User = t.object({ id: t.int(), name: t.str(), email: t.optional(t.str()), roles: t.list(Role) });
const ZodUser = z.object({
  id: z.number().int(),
  name: z.string(),
  email: z.string().optional(),
  roles: z.array(z.object({ name: z.string() })),
});

const VARIANTS = {
  none: { label: "no responses schema", options: {} },
  off: {
    label: 't.object, responseCheck: "off"',
    options: { responses: { 200: User }, responseCheck: "off" },
  },
  t: { label: 't.object, responseCheck: "fail"', options: { responses: { 200: User } } },
  zod: { label: 'zod object, responseCheck: "fail"', options: { responses: { 200: ZodUser } } },
} satisfies Record<string, { label: string; options: RouteOptions }>;
type VariantName = keyof typeof VARIANTS;

async function runVariant(name: VariantName): Promise<number> {
  const app = new Webfw(import.meta.path, { router: "bun", openapi: false });
  const roles = [{ name: "admin" }, { name: "editor" }, { name: "viewer" }];
  app.get(
    "/users/1",
    () => ({
      id: 1,
      name: "Ada",
      email: "ada@example.com",
      passwordHash: "$argon2id$x",
      createdAt: 0,
      roles,
    }),
    VARIANTS[name].options as RouteOptions,
  );
  return nsPerCall(await dispatcherOf(app, "/users/1"), "http://127.0.0.1/users/1", N, true);
}

/** The wrapped handler alone (no dispatcher, no Response): the check's own ns per call, best of 11 rounds. */
function checkAlone(options: RouteOptions): number {
  const roles = [{ name: "admin" }, { name: "editor" }, { name: "viewer" }];
  const handler = () => ({
    id: 1,
    name: "Ada",
    email: "ada@example.com",
    passwordHash: "$x",
    createdAt: 0,
    roles,
  });
  const contract = responseContract({ method: "GET", path: "/users/1", options }, "fail");
  const call = contract === null ? handler : contract(handler);
  const request = {} as Parameters<typeof call>[0];
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = Bun.nanoseconds();
    for (let i = 0; i < N; i++) call(request);
    times.push((Bun.nanoseconds() - start) / N);
  }
  return Math.min(...times);
}

if (process.argv[2] === "alone") {
  for (const name of ["none", "t", "zod"] as const) {
    console.log(
      `${VARIANTS[name].label.padEnd(40)} ${checkAlone(VARIANTS[name].options as RouteOptions)
        .toFixed(0)
        .padStart(7)} ns (handler + check only)`,
    );
  }
  process.exit(0);
}

await compareVariants(import.meta.path, VARIANTS, N, runVariant);
