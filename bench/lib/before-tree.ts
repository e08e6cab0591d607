/**
 * The source tree of webfw before a change, for a bench variant that compares against it: `git
 * archive REV src native package.json` extracted into a temporary directory, with this checkout's
 * node_modules linked in (the dependencies the old code needs are a subset of today's).
 */
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const REPO = join(import.meta.dir, "../..");

/** The commit before the first observability landing (found by its subject, so no hash is hard-coded). */
export function revisionBeforeObservability(): string | null {
  const found = Bun.spawnSync(
    ["git", "log", "--format=%H", "--reverse", "--grep=^Observability: --log-format json", "main"],
    { cwd: REPO },
  );
  const first = found.stdout.toString().trim().split("\n")[0];
  return first ? `${first}^` : null;
}

/** Extracts `rev`'s src/ into a temporary directory; returns it and how to remove it. */
export function extractTree(rev: string): { root: string; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), "webfw-before-"));
  const archive = Bun.spawnSync(["git", "archive", "--format=tar", rev, "src", "native", "package.json"], {
    cwd: REPO,
  });
  if (archive.exitCode !== 0) throw new Error(`git archive ${rev}: ${archive.stderr.toString()}`);
  const untar = Bun.spawnSync(["tar", "-x", "-C", root], { stdin: archive.stdout });
  if (untar.exitCode !== 0) throw new Error(`tar: ${untar.stderr.toString()}`);
  symlinkSync(join(REPO, "node_modules"), join(root, "node_modules"));
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}
