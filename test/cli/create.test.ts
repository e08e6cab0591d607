/** `--create`: non-interactive flags, piped answers, refusals, and the scaffold's own tests. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildBundle } from "../../scripts/build.ts";
import { type Prompter, packageNameFrom, planCreate } from "../../src/launch/create.ts";
import type { TemplateName } from "../../src/launch/flags.ts";
import { projectFiles } from "../../src/launch/templates.ts";
import { runCommand } from "../helpers/run-command.ts";
import { REPO, runCli, tempDir, testEnv } from "./helpers.ts";

const FAKE_WEBFW = join(import.meta.dir, "fixtures/fake-webfw");
const HAS_CORE = existsSync(join(REPO, "src/index.ts"));

let tmp: { path: string; remove: () => void };
beforeAll(() => {
  tmp = tempDir("create");
});
afterAll(() => tmp.remove());

const read = (...parts: string[]) => readFileSync(join(tmp.path, ...parts), "utf8");

function answers(...lines: string[]): () => Prompter {
  return () => {
    const queue = [...lines];
    return { ask: async () => queue.shift(), close: () => {} };
  };
}

describe("webfw --create (non-interactive)", () => {
  test("plain, without Docker", async () => {
    const { code, stdout, stderr } = await runCli(
      ["--create", "--dir", "plain-app", "--template", "plain", "--no-docker"],
      { cwd: tmp.path },
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain("Created plain-app in plain-app (template: plain)");
    expect(readdirSync(join(tmp.path, "plain-app")).sort()).toEqual(
      [".gitignore", "README.md", "app.ts", "package.json", "test", "tsconfig.json"].sort(),
    );
    const pkg = JSON.parse(read("plain-app/package.json"));
    expect(pkg.name).toBe("plain-app");
    expect(pkg.dependencies.webfw).toMatch(/^\^\d+\.\d+\.\d+/);
    expect(pkg.scripts.dev).toBe("bun app.ts --dev");
    const app = read("plain-app/app.ts");
    expect(app).toContain('import { Webfw } from "webfw";');
    expect(app).toContain("new Webfw(import.meta.path, { secureHeaders: true })");
    expect(app).toContain("if (import.meta.main) app.start();");
    expect(read("plain-app/test/app.test.ts")).toContain('app.start({ port: 0, host: "127.0.0.1" })');
  });

  test("sqlite with Docker, --yes, --name and a custom webfw spec", async () => {
    const { code } = await runCli(
      [
        "--create",
        "--name",
        "notes-api",
        "--template",
        "sqlite",
        "--docker",
        "--yes",
        "--webfw-spec",
        "file:../webfw",
      ],
      { cwd: tmp.path },
    );
    expect(code).toBe(0);
    const pkg = JSON.parse(read("notes-api/package.json"));
    expect(pkg.dependencies.webfw).toBe("file:../webfw");
    expect(read("notes-api/app.ts")).toContain('import { Database } from "bun:sqlite";');
    const dockerfile = read("notes-api/Dockerfile");
    expect(dockerfile).toContain("FROM oven/bun:1");
    expect(dockerfile).toContain("ENV DATABASE_PATH=/data/app.sqlite");
    expect(dockerfile).toContain('CMD ["bun", "app.ts", "--fast"]');
    expect(read("notes-api/.dockerignore")).toContain("node_modules");
  });

  test("postgres with Docker adds compose.yaml and .env.example", async () => {
    const { code } = await runCli(["--create", "--dir=pg", "--template=postgres", "--docker"], {
      cwd: tmp.path,
    });
    expect(code).toBe(0);
    expect(read("pg/app.ts")).toContain('import { SQL } from "bun";');
    expect(read("pg/compose.yaml")).toContain("image: postgres:17");
    expect(read("pg/.env.example")).toContain("DATABASE_URL=");
  });

  test("--yes alone takes every default", async () => {
    const dir = join(tmp.path, "defaults");
    mkdirSync(dir);
    const { code } = await runCli(["--create", "--yes"], { cwd: dir });
    expect(code).toBe(0);
    expect(existsSync(join(dir, "webfw-app/app.ts"))).toBe(true);
    expect(existsSync(join(dir, "webfw-app/Dockerfile"))).toBe(false);
  });

  test("a non-empty directory is refused (exit 1); a bad --name exits 2", async () => {
    mkdirSync(join(tmp.path, "busy"));
    writeFileSync(join(tmp.path, "busy/keep.txt"), "mine");
    const busy = await runCli(["--create", "--dir", "busy", "-y"], { cwd: tmp.path });
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain("exists and is not empty");
    expect(read("busy/keep.txt")).toBe("mine");

    const bad = await runCli(["--create", "--name", "Bad Name!", "-y"], { cwd: tmp.path });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"Bad Name!" is not a valid package name');
  });
});

describe("webfw --create (interactive, answers piped on stdin)", () => {
  test("directory, template and Docker from the answers", async () => {
    const { code, stdout } = await runCli(["--create"], { cwd: tmp.path, stdin: "piped-app\nsqlite\ny\n" });
    expect(code).toBe(0);
    expect(stdout).toContain("Project directory [webfw-app]: piped-app");
    expect(stdout).toContain("Add a Dockerfile? (y/N): y");
    expect(read("piped-app/app.ts")).toContain("bun:sqlite");
    expect(existsSync(join(tmp.path, "piped-app/Dockerfile"))).toBe(true);
  });

  test("invalid answers are asked again; numbers pick templates", async () => {
    const { code, stdout } = await runCli(["--create"], {
      cwd: tmp.path,
      stdin: "retry-app\nmongo\n3\nmaybe\nn\n",
    });
    expect(code).toBe(0);
    expect(stdout).toContain("please answer plain, sqlite or postgres");
    expect(stdout).toContain("please answer y or n");
    expect(read("retry-app/app.ts")).toContain('import { SQL } from "bun";');
    expect(existsSync(join(tmp.path, "retry-app/Dockerfile"))).toBe(false);
  });

  test("flags answer their questions; ended input takes the defaults", async () => {
    const { code, stdout } = await runCli(["--create", "--template", "plain"], {
      cwd: tmp.path,
      stdin: "eof-app\n",
    });
    expect(code).toBe(0);
    expect(stdout).not.toContain("Template:");
    expect(existsSync(join(tmp.path, "eof-app/app.ts"))).toBe(true);
    expect(existsSync(join(tmp.path, "eof-app/Dockerfile"))).toBe(false);
  });
});

describe("planCreate", () => {
  test("with a scripted prompter", async () => {
    const plan = await planCreate({ yes: false }, { cwd: "/x", prompter: answers("My App", "2", "yes") });
    expect(plan).toEqual({
      dir: "/x/My App",
      name: "my-app",
      template: "sqlite",
      docker: true,
      webfwSpec: expect.stringMatching(/^\^/),
    });
  });

  test("a scoped --name gives a plain directory", async () => {
    const plan = await planCreate({ yes: true, name: "@acme/api" }, { cwd: "/x" });
    expect(plan.dir).toBe("/x/api");
    expect(plan.name).toBe("@acme/api");
  });

  test("packageNameFrom", () => {
    expect(packageNameFrom("/a/My Cool_App!")).toBe("my-cool_app");
    expect(packageNameFrom("/a/.hidden")).toBe("hidden");
    expect(packageNameFrom("/a/!!!")).toBe("webfw-app");
  });

  test("every template's TypeScript parses", () => {
    const transpiler = new Bun.Transpiler({ loader: "ts" });
    for (const template of ["plain", "sqlite", "postgres"] as TemplateName[]) {
      const files = projectFiles({ name: "x", template, docker: true, webfwSpec: "*" });
      for (const [path, content] of Object.entries(files)) {
        if (path.endsWith(".ts")) expect(() => transpiler.transformSync(content)).not.toThrow();
        if (path.endsWith(".json")) expect(() => JSON.parse(content)).not.toThrow();
      }
    }
  });
});

/** Scaffolds `template`, links `webfw` to `target`, runs the scaffold's own `bun test`. */
async function scaffoldAndTest(template: TemplateName, target: string, spec: string) {
  const name = `run-${template}-${target === REPO ? "core" : "fake"}`;
  const created = await runCli(
    ["--create", "--dir", name, "--template", template, "--docker", "--webfw-spec", spec],
    { cwd: tmp.path },
  );
  expect(created.code).toBe(0);
  const dir = join(tmp.path, name);
  // What `bun install` does for a `file:` dependency, without the network (the devDependency is types only).
  // Linked to this repository, the scaffold runs its built package (docs/packaging.md): fresh.
  if (target === REPO) await buildBundle(join(REPO, "dist"));
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  symlinkSync(target, join(dir, "node_modules/webfw"), "dir");
  const { code, stdout, stderr } = await runCommand([process.execPath, "test"], {
    cwd: dir,
    env: testEnv({ DATABASE_URL: undefined }),
  });
  return { code, output: stdout + stderr };
}

describe("the scaffold runs and its own test passes", () => {
  for (const template of ["plain", "sqlite", "postgres"] as TemplateName[]) {
    test(`${template}, against a stand-in core`, async () => {
      const { code, output } = await scaffoldAndTest(template, FAKE_WEBFW, `file:${FAKE_WEBFW}`);
      expect(output).toContain(" 0 fail");
      expect(code).toBe(0);
      if (template === "sqlite") expect(output).toContain("notes: create, list, read, reject bad input");
    }, 30_000);
  }

  // Needs the real core (src/index.ts); runs as soon as it exists.
  for (const template of ["plain", "sqlite", "postgres"] as TemplateName[]) {
    test.skipIf(!HAS_CORE)(
      `${template}, against the real webfw`,
      async () => {
        const { code, output } = await scaffoldAndTest(template, REPO, `file:${REPO}`);
        if (code !== 0) console.error(output);
        expect(output).toContain(" 0 fail");
        expect(code).toBe(0);
      },
      60_000,
    );
  }
});
