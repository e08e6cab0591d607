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

type RouteFn = (req: Request, server: null) => Response | Promise<Response>;

const ROUNDS = 11;
const N = Number(process.env.MICRO_N ?? "50000");

async function bench(fn: RouteFn): Promise<number> {
  const make = () => new Request("http://127.0.0.1/users/1");
  const requests = Array.from({ length: N }, make);
  const run = async () => {
    const start = Bun.nanoseconds();
    for (let i = 0; i < N; i++) {
      let out = fn(requests[i] as Request, null);
      if (out instanceof Promise) out = await out;
      await out.arrayBuffer();
    }
    return (Bun.nanoseconds() - start) / N;
  };
  await run();
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < N; i++) requests[i] = make();
    times.push(await run());
  }
  return Math.min(...times);
}

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
  const built = await app.build({});
  return bench((built.bunRoutes["/users/1"] as unknown as Record<string, RouteFn>).GET as RouteFn);
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

const only = process.argv[2] as VariantName | undefined;
if (only !== undefined) {
  console.log(JSON.stringify({ ns: await runVariant(only) }));
  process.exit(0);
}

const names = Object.keys(VARIANTS) as VariantName[];
const runs = Number(process.env.MICRO_RUNS ?? "3");
const results = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<
  VariantName,
  number[]
>;
for (let run = 0; run < runs; run++) {
  for (const name of names) {
    const child = Bun.spawnSync([process.execPath, import.meta.path, name], {
      env: { ...process.env, MICRO_N: String(N) },
    });
    const last = child.stdout.toString().trim().split("\n").pop() ?? "";
    results[name].push((JSON.parse(last) as { ns: number }).ns);
  }
}
console.log(`\n${"variant".padEnd(40)} best ns   runs (ns)`);
for (const name of names) {
  const best = Math.min(...results[name]);
  console.log(
    `${VARIANTS[name].label.padEnd(40)} ${best.toFixed(0).padStart(7)}   ${results[name].map((v) => v.toFixed(0)).join(", ")}`,
  );
}
