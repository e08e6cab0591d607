/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned
 * in test/mcp/conformance/package.json with the Node ≥ 22 it needs) against
 * examples/mcp-everything.ts: every server scenario of `--suite all`, pending
 * ones included. A scenario counts as passed only when at least one of its
 * checks succeeded and none failed (a scenario where no check ran does not).
 * `.ci/run` installs the folder; without it the test skips with the reason
 * (and fails under CI=true).
 */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import app from "../../examples/mcp-everything.ts";
import type { ServerHandle } from "../../src/launch/server.ts";
import { testWithProgram } from "../helpers/system-program.ts";

const FOLDER = join(import.meta.dir, "conformance", "node_modules");
const NODE = join(FOLDER, ".bin", "node");
const SUITE = join(FOLDER, "@modelcontextprotocol", "conformance", "dist", "index.js");
const INSTALL = "npm install --prefix test/mcp/conformance (.ci/run does it)";

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

async function run(args: string[]): Promise<string> {
  const child = Bun.spawn([NODE, SUITE, ...args], { stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  await child.exited;
  return out + err;
}

describe("official MCP conformance suite, server --suite all", () => {
  let server: ServerHandle | null = null;
  const results = mkdtempSync(join(tmpdir(), "webfw-mcp-conformance-"));

  beforeAll(async () => {
    if (existsSync(SUITE)) server = await app.start({ port: 0, host: "127.0.0.1", handleSignals: false });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(results, { recursive: true, force: true });
  });

  testWithProgram(
    NODE,
    INSTALL,
    "every scenario passes",
    async () => {
      // The scenario list comes from the suite itself, so a scenario it adds cannot be missed.
      const listing = await run(["list", "--server"]);
      const scenarios = [...listing.matchAll(/^\s+- ([a-z0-9-]+) \[/gm)].map((match) => match[1] as string);
      expect(scenarios.length).toBeGreaterThanOrEqual(32);
      expect(scenarios).toContain("dns-rebinding-protection");
      const url = `http://localhost:${server?.port}/mcp`;
      const output = await run(["server", "--url", url, "--suite", "all", "-o", results]);
      const problems: string[] = [];
      for (const scenario of scenarios) {
        const folder = readdirSync(results).find((name) => name.startsWith(`server-${scenario}-`));
        if (folder === undefined) {
          problems.push(`${scenario}: no results`);
          continue;
        }
        const checks = JSON.parse(readFileSync(join(results, folder, "checks.json"), "utf8")) as Check[];
        const failed = checks.filter((check) => check.status === "FAILURE" || check.status === "WARNING");
        const succeeded = checks.filter((check) => check.status === "SUCCESS");
        if (failed.length > 0) {
          problems.push(
            `${scenario}: ${failed.map((check) => `${check.id} ${check.status} ${check.errorMessage ?? ""}`).join("; ")}`,
          );
        } else if (succeeded.length === 0) problems.push(`${scenario}: no check ran`);
      }
      if (problems.length > 0) console.log(output);
      expect(problems).toEqual([]);
    },
    180_000,
  );
});
