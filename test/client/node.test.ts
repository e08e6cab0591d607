/**
 * webfw/client runs in Node (the issue asks for browsers, Bun and Node): the client bundled
 * by `bun build --target node`, run by Debian's `node` against a real webfw server: text,
 * JSON with auth and a typed body, a 422, and an SSE stream read through Node's fetch.
 * Skipped with a reason when `node` is missing (fails under CI=true).
 */
import { afterAll, beforeAll, expect } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServerHandle } from "../../src/index.ts";
import { startQuiet } from "../helpers/quiet-server.ts";
import { testWithProgram } from "../helpers/system-program.ts";
import * as api from "./fixtures/api.ts";

const REPO = join(import.meta.dir, "../..");
let server: ServerHandle;
const dir = mkdtempSync(join(tmpdir(), "webfw-client-node-"));

beforeAll(async () => {
  server = await startQuiet(api.app);
});
afterAll(async () => {
  await server.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

async function run(command: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(command, { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

const SCRIPT = `import { client } from "./client.mjs";
const api = client(process.argv[2]);
const out = {};
const hello = await api.get("/");
out.hello = [hello.status, hello.data];
const created = await api.post("/notes", { body: { title: "from node" }, headers: { authorization: "Bearer secret" } });
out.created = [created.status, created.data.title, typeof created.data.createdAt];
const invalid = await api.post("/notes", { body: { title: "" }, headers: { authorization: "Bearer secret" } });
out.invalid = [invalid.status, invalid.issues.map((issue) => issue.path)];
const events = await api.get("/notes/events", { args: { count: 2 } });
out.events = [];
for await (const message of events.data) out.events.push([message.event, message.data]);
console.log(JSON.stringify(out));
`;

testWithProgram(
  "node",
  "apt-get install -y nodejs",
  "the client bundled for Node calls a webfw server",
  async () => {
    const built = await run([
      process.execPath,
      "build",
      join(REPO, "src/client/index.ts"),
      "--target",
      "node",
      "--outfile",
      join(dir, "client.mjs"),
    ]);
    expect(built.code).toBe(0);
    writeFileSync(join(dir, "run.mjs"), SCRIPT);
    const result = await run(["node", join(dir, "run.mjs"), server.url]);
    if (result.code !== 0) console.error(result.stderr);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      hello: [200, "hello"],
      created: [201, "from node", "string"],
      invalid: [422, ["title"]],
      events: [
        ["note", { n: 0, title: "line\nbreak 0" }],
        ["note", { n: 1, title: "line\nbreak 1" }],
        ["message", "done"],
      ],
    });
  },
  60_000,
);
