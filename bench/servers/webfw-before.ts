/**
 * webfw as it was before observability landed (issue #19), for the bench row "everything off ≥
 * 0.99 × the previous figure": the same hello app, imported from `BENCH_BEFORE_ROOT`, a source
 * tree the runner extracted from git (bench/lib/before-tree.ts). Only the observability scenario uses it.
 */
import { announce, HELLO } from "../lib/ready.ts";

const root = process.env.BENCH_BEFORE_ROOT;
if (!root) throw new Error("BENCH_BEFORE_ROOT is not set (bench/lib/before-tree.ts prepares it)");
const { Webfw } = (await import(`${root}/src/index.ts`)) as typeof import("../../src/index.ts");
const app = new Webfw(import.meta.path);
app.get("/", () => HELLO);
const handle = await app.start({
  host: "127.0.0.1",
  port: Number(process.env.BENCH_PORT ?? "0"),
  handleSignals: false,
  accessLog: false,
  argv: [],
});
announce(handle.port);
