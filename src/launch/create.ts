/** `--create`: scaffolds a new project, asking for what the flags did not say. */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { createInterface } from "node:readline";
import { TEMPLATES, type TemplateName } from "./flag-table.ts";
import type { CreateFlags } from "./flags.ts";
import { type ProjectSpec, projectFiles } from "./templates.ts";
import { VERSION } from "./version.ts";

export const DEFAULT_DIR = "webfw-app";

/** A refused `--create` (bad name, non-empty directory). `exitCode` 2 marks a bad flag value. */
export class CreateError extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = "CreateError";
    this.exitCode = exitCode;
  }
}

/** Asks one question; resolves undefined when input has ended (then the default applies). */
export interface Prompter {
  ask(question: string): Promise<string | undefined>;
  close(): void;
}

/**
 * Reads answers line by line from stdin, a terminal or a pipe alike
 * (`printf 'my-app\nsqlite\ny\n' | webfw --create`). Piped answers are echoed
 * so the transcript reads like a session.
 */
export function stdinPrompter(
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stdout,
): Prompter {
  const rl = createInterface({ input, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  const echo = !(input as { isTTY?: boolean }).isTTY;
  let ended = false;
  return {
    async ask(question) {
      output.write(question);
      if (ended) {
        output.write("\n");
        return undefined;
      }
      const next = await lines.next();
      if (next.done) {
        ended = true;
        output.write("\n");
        return undefined;
      }
      if (echo) output.write(`${next.value}\n`);
      return next.value;
    },
    close() {
      rl.close();
    },
  };
}

/** What `--create` will write. */
export interface CreatePlan extends ProjectSpec {
  /** Absolute directory of the new project. */
  dir: string;
}

const NPM_NAME = /^(?:@[a-z0-9~-][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/;

/** A valid npm package name derived from a folder name. */
export function packageNameFrom(dir: string): string {
  const name = basename(resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, "-")
    .replace(/^[._]+/, "")
    .replace(/^-+|-+$/g, "");
  return name || DEFAULT_DIR;
}

function checkName(name: string): string | undefined {
  if (name.length > 214 || !NPM_NAME.test(name)) {
    return `"${name}" is not a valid package name (lowercase letters, digits, - . _ ~, optionally @scope/)`;
  }
  return undefined;
}

function parseTemplate(answer: string): TemplateName | undefined {
  const text = answer.trim().toLowerCase();
  const byNumber = /^[1-9]$/.test(text) ? TEMPLATES[Number(text) - 1] : undefined;
  return byNumber ?? TEMPLATES.find((t) => t === text);
}

function parseYesNo(answer: string): boolean | undefined {
  const text = answer.trim().toLowerCase();
  if (["y", "yes", "true", "1"].includes(text)) return true;
  if (["n", "no", "false", "0"].includes(text)) return false;
  return undefined;
}

type Parsed<T> = { value: T } | { error: string };

/** Asks until the answer is valid; an empty answer or ended input takes the default. */
async function askValid<T>(
  prompter: Prompter,
  question: string,
  fallback: T,
  parse: (answer: string) => Parsed<T>,
): Promise<T> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const answer = await prompter.ask(question);
    if (answer === undefined || answer.trim() === "") return fallback;
    const parsed = parse(answer.trim());
    if ("value" in parsed) return parsed.value;
    process.stdout.write(`  ${parsed.error}\n`);
  }
  throw new CreateError("too many invalid answers");
}

/**
 * Settles every choice: flags first, then answers (unless `--yes`), then defaults.
 * Throws `CreateError` (exit 2) for an invalid flag value.
 */
export async function planCreate(
  flags: CreateFlags,
  options: { cwd?: string; prompter?: () => Prompter } = {},
): Promise<CreatePlan> {
  const cwd = options.cwd ?? process.cwd();
  if (flags.name !== undefined) {
    const problem = checkName(flags.name);
    if (problem) throw new CreateError(`--name: ${problem}`, 2);
  }
  const givenDir = flags.dir ?? (flags.name ? flags.name.replace(/^@[^/]+\//, "") : undefined);
  const complete = givenDir !== undefined && flags.template !== undefined && flags.docker !== undefined;
  const prompter = flags.yes || complete ? undefined : (options.prompter ?? stdinPrompter)();
  try {
    const dir =
      givenDir ??
      (prompter
        ? await askValid(prompter, `Project directory [${DEFAULT_DIR}]: `, DEFAULT_DIR, (a) => ({ value: a }))
        : DEFAULT_DIR);
    const template =
      flags.template ??
      (prompter
        ? await askValid<TemplateName>(
            prompter,
            "Template: 1) plain  2) sqlite (bun:sqlite)  3) postgres (Bun.sql) [plain]: ",
            "plain",
            (a) => {
              const value = parseTemplate(a);
              return value ? { value } : { error: "please answer plain, sqlite or postgres (or 1, 2, 3)" };
            },
          )
        : "plain");
    const docker =
      flags.docker ??
      (prompter
        ? await askValid<boolean>(prompter, "Add a Dockerfile? (y/N): ", false, (a) => {
            const value = parseYesNo(a);
            return value === undefined ? { error: "please answer y or n" } : { value: value };
          })
        : false);
    const absolute = resolve(cwd, dir);
    return {
      dir: absolute,
      name: flags.name ?? packageNameFrom(absolute),
      template,
      docker,
      webfwSpec: flags.webfwSpec ?? `^${VERSION}`,
    };
  } finally {
    prompter?.close();
  }
}

/** Writes the project; refuses a directory that exists and is not empty. Returns the files written. */
export function writeProject(plan: CreatePlan): string[] {
  if (existsSync(plan.dir)) {
    if (!statSync(plan.dir).isDirectory()) throw new CreateError(`${plan.dir} exists and is not a directory`);
    if (readdirSync(plan.dir).length > 0) {
      throw new CreateError(`${plan.dir} exists and is not empty; choose another directory`);
    }
  }
  const files = projectFiles(plan);
  const written: string[] = [];
  for (const [path, content] of Object.entries(files)) {
    const target = join(plan.dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
    written.push(path);
  }
  return written;
}

/** The whole `--create` command: plan, write, print next steps. Returns the exit code. */
export async function runCreate(
  flags: CreateFlags,
  options: { cwd?: string; prompter?: () => Prompter } = {},
): Promise<number> {
  try {
    const plan = await planCreate(flags, options);
    const files = writeProject(plan);
    const shown = relative(options.cwd ?? process.cwd(), plan.dir) || ".";
    const lines = [
      `Created ${plan.name} in ${shown} (template: ${plan.template}${plan.docker ? ", with Dockerfile" : ""}):`,
      ...files.map((f) => `  ${f}`),
      "",
      "Next:",
      `  cd ${shown}`,
      "  bun install",
      "  bun app.ts --dev",
      "  bun test",
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
    return 0;
  } catch (error) {
    if (error instanceof CreateError) {
      process.stderr.write(`webfw --create: ${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  }
}
