/**
 * The MCP Inspector CLI (`@modelcontextprotocol/inspector --cli … --transport http`) run as a
 * subprocess exactly as a user would, offline: with Node when present (what `npx` would use), else
 * with Bun, and a scratch $HOME for the catalog it keeps there.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const INSPECTOR = join(ROOT, "node_modules", ".bin", "mcp-inspector");

export interface InspectorRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** One Inspector CLI run against the MCP endpoint at `mcpUrl`; killed after 25 s. */
export async function runInspector(mcpUrl: string, ...args: string[]): Promise<InspectorRun> {
  const home = mkdtempSync(join(tmpdir(), "webfw-inspector-"));
  const runtime = Bun.which("node") ?? process.execPath;
  const child = Bun.spawn([runtime, INSPECTOR, "--cli", mcpUrl, "--transport", "http", ...args], {
    cwd: ROOT,
    env: { ...process.env, HOME: home, NO_COLOR: "1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const killer = setTimeout(() => child.kill(), 25_000);
  try {
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    return { code, stdout, stderr };
  } finally {
    clearTimeout(killer);
    rmSync(home, { recursive: true, force: true });
  }
}
