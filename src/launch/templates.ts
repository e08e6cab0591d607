/**
 * The files of a new project (`--create`). Kept as code rather than template
 * files so they travel inside `bunx webfw` and compiled binaries without any
 * file lookup.
 */
import type { TemplateName } from "./flags.ts";

export interface ProjectSpec {
  /** npm package name. */
  name: string;
  template: TemplateName;
  docker: boolean;
  /** Version spec (or `file:` path) of the webfw dependency. */
  webfwSpec: string;
}

/** Relative path → file content. */
export type ProjectFiles = Record<string, string>;

export function projectFiles(spec: ProjectSpec): ProjectFiles {
  const files: ProjectFiles = {
    "package.json": packageJson(spec),
    "tsconfig.json": TSCONFIG,
    ".gitignore": GITIGNORE,
    "app.ts": APPS[spec.template](spec),
    "test/app.test.ts": TESTS[spec.template](spec),
    "README.md": readme(spec),
  };
  if (spec.template === "postgres") files[".env.example"] = POSTGRES_ENV;
  if (spec.docker) {
    files.Dockerfile = dockerfile(spec);
    files[".dockerignore"] = DOCKERIGNORE;
    if (spec.template === "postgres") files["compose.yaml"] = COMPOSE;
  }
  return files;
}

function greeting(spec: ProjectSpec): string {
  return `Hello from ${spec.name}!`;
}

function packageJson(spec: ProjectSpec): string {
  const pkg = {
    name: spec.name,
    version: "0.1.0",
    private: true,
    type: "module",
    scripts: {
      start: "bun app.ts",
      dev: "bun app.ts --dev",
      fast: "bun app.ts --fast",
      test: "bun test",
      build: "webfw build app.ts --outfile dist/app",
    },
    dependencies: { webfw: spec.webfwSpec },
    devDependencies: { "@types/bun": "latest" },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

const TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      target: "ESNext",
      module: "Preserve",
      moduleResolution: "bundler",
      moduleDetection: "force",
      lib: ["ESNext"],
      types: ["bun"],
      strict: true,
      skipLibCheck: true,
      allowImportingTsExtensions: true,
      verbatimModuleSyntax: true,
      noEmit: true,
    },
  },
  null,
  2,
)}\n`;

const GITIGNORE = `node_modules/
dist/
.webfw-cache/
*.sqlite
*.sqlite-*
.env
`;

const COMMON_ROUTES = (spec: ProjectSpec) => `app.get("/", () => ${JSON.stringify(greeting(spec))});
app.get("/health", () => "ok", { const: true });
app.get("/hello/:name", ({ pathParams }) => ({ hello: pathParams.name }));`;

const START = `
// \`bun app.ts [flags]\` starts the server (see \`bun app.ts --help\`);
// the tests import \`app\` and start it themselves on a free port.
if (import.meta.main) app.start();
`;

const APPS: Record<TemplateName, (spec: ProjectSpec) => string> = {
  plain: (spec) => `import { Webfw } from "webfw";

// secureHeaders: CSP with a per-response nonce (request.cspNonce), HSTS over TLS, nosniff, … (docs/security.md).
export const app = new Webfw(import.meta.path, { secureHeaders: true });

${COMMON_ROUTES(spec)}
${START}`,

  sqlite: (spec) => `import { Database } from "bun:sqlite";
import { t, Webfw } from "webfw";

interface Note {
  id: number;
  text: string;
}

// DATABASE_PATH=":memory:" gives a throwaway database (the tests use it). Every
// process (--processes) and worker (--workers) opens its own connection.
const db = new Database(process.env.DATABASE_PATH ?? "app.sqlite", { create: true, strict: true });
db.run("PRAGMA journal_mode = WAL");
db.run("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL)");

const listNotes = db.query<Note, []>("SELECT id, text FROM notes ORDER BY id");
const getNote = db.query<Note, [number]>("SELECT id, text FROM notes WHERE id = ?");
const insertNote = db.query<Note, [string]>("INSERT INTO notes (text) VALUES (?) RETURNING id, text");

// secureHeaders: CSP with a per-response nonce (request.cspNonce), HSTS over TLS, nosniff, … (docs/security.md).
export const app = new Webfw(import.meta.path, { secureHeaders: true });

${COMMON_ROUTES(spec)}

app.get("/notes", () => listNotes.all());

app.get("/notes/:id", ({ args }) => getNote.get(args.id) ?? ["note not found", 404], {
  args: { id: t.int() },
});

app.post("/notes", (request) => {
  const text = textOf(request.json());
  if (text === undefined) return ["text must be a non-empty string", 400];
  return [insertNote.get(text), 201];
});

function textOf(body: unknown): string | undefined {
  const text = typeof body === "object" && body !== null ? (body as { text?: unknown }).text : undefined;
  return typeof text === "string" && text.trim() !== "" ? text : undefined;
}

app.shutdownHandler(() => db.close());
${START}`,

  postgres: (spec) => `import { SQL } from "bun";
import { t, Webfw } from "webfw";

// Bun.sql connects lazily, on the first query, so the app starts without a database;
// set DATABASE_URL (see .env.example; Bun loads .env by itself).
const sql = new SQL(process.env.DATABASE_URL ?? "postgres://postgres:postgres@localhost:5432/app");

let migrated: Promise<unknown> | undefined;
function migrate(): Promise<unknown> {
  migrated ??= sql\`CREATE TABLE IF NOT EXISTS notes (id SERIAL PRIMARY KEY, text TEXT NOT NULL)\`;
  return migrated;
}

// secureHeaders: CSP with a per-response nonce (request.cspNonce), HSTS over TLS, nosniff, … (docs/security.md).
export const app = new Webfw(import.meta.path, { secureHeaders: true });

${COMMON_ROUTES(spec)}

app.get("/notes", async () => {
  await migrate();
  return [...(await sql\`SELECT id, text FROM notes ORDER BY id\`)];
});

app.get(
  "/notes/:id",
  async ({ args }) => {
    await migrate();
    const [note] = await sql\`SELECT id, text FROM notes WHERE id = \${args.id}\`;
    return note ?? ["note not found", 404];
  },
  { args: { id: t.int() } },
);

app.post("/notes", async (request) => {
  const text = textOf(request.json());
  if (text === undefined) return ["text must be a non-empty string", 400];
  await migrate();
  const [note] = await sql\`INSERT INTO notes (text) VALUES (\${text}) RETURNING id, text\`;
  return [note, 201];
});

function textOf(body: unknown): string | undefined {
  const text = typeof body === "object" && body !== null ? (body as { text?: unknown }).text : undefined;
  return typeof text === "string" && text.trim() !== "" ? text : undefined;
}

app.shutdownHandler(() => sql.close());
${START}`,
};

const TEST_HEAD = (before = "") => `import { afterAll, expect, test } from "bun:test";
${before}
// Import after the environment is set, then serve on a free port.
const { app } = await import("../app.ts");
const server = await app.start({ port: 0, host: "127.0.0.1" });
const base = \`http://127.0.0.1:\${server.port}\`;

afterAll(async () => {
  await server.stop();
});
`;

const COMMON_TESTS = (spec: ProjectSpec) => `
test("GET / says hello", async () => {
  const res = await fetch(\`\${base}/\`);
  expect(res.status).toBe(200);
  expect(await res.text()).toBe(${JSON.stringify(greeting(spec))});
});

test("GET /health is ok", async () => {
  const res = await fetch(\`\${base}/health\`);
  expect(res.status).toBe(200);
  expect(await res.text()).toBe("ok");
});

test("GET /hello/:name answers JSON", async () => {
  const res = await fetch(\`\${base}/hello/ada\`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/json");
  expect(await res.json()).toEqual({ hello: "ada" });
});

test("an unknown path is 404", async () => {
  const res = await fetch(\`\${base}/no/such/page\`);
  expect(res.status).toBe(404);
});
`;

const NOTES_TESTS = (prefix: string) => `
${prefix}("notes: create, list, read, reject bad input", async () => {
  const created = await fetch(\`\${base}/notes\`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ text: "first" }),
  });
  expect(created.status).toBe(201);
  const note = (await created.json()) as { id: number; text: string };
  expect(note.text).toBe("first");

  const list = await fetch(\`\${base}/notes\`);
  expect(list.status).toBe(200);
  expect(await list.json()).toContainEqual(note);

  const one = await fetch(\`\${base}/notes/\${note.id}\`);
  expect(await one.json()).toEqual(note);

  expect((await fetch(\`\${base}/notes/999999\`)).status).toBe(404);
  expect((await fetch(\`\${base}/notes/abc\`)).status).toBe(400);
  const bad = await fetch(\`\${base}/notes\`, { method: "POST", body: JSON.stringify({ text: 3 }) });
  expect(bad.status).toBe(400);
});
`;

const TESTS: Record<TemplateName, (spec: ProjectSpec) => string> = {
  plain: (spec) => TEST_HEAD() + COMMON_TESTS(spec),
  sqlite: (spec) =>
    TEST_HEAD('\nprocess.env.DATABASE_PATH = ":memory:";\n') + COMMON_TESTS(spec) + NOTES_TESTS("test"),
  postgres: (spec) =>
    `${TEST_HEAD()}${COMMON_TESTS(spec)}
// The notes routes need a database: they run when DATABASE_URL is set.
const withDatabase = test.skipIf(!process.env.DATABASE_URL);
${NOTES_TESTS("withDatabase")}`,
};

const POSTGRES_ENV = `# Copy to .env (Bun loads it automatically) and adjust.
DATABASE_URL=postgres://postgres:postgres@localhost:5432/app
`;

function dockerfile(spec: ProjectSpec): string {
  const sqlite = spec.template === "sqlite";
  return `# docker build -t ${spec.name} . && docker run --rm -p 8080:8080 ${spec.name}
FROM oven/bun:1 AS deps
WORKDIR /app
COPY package.json bun.lock* ./
RUN bun install --production

FROM oven/bun:1
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY . .
ENV NODE_ENV=production WEBFW_HOST=0.0.0.0 WEBFW_PORT=8080
${
  sqlite
    ? `# The database lives in a volume, writable by the unprivileged user.
ENV DATABASE_PATH=/data/app.sqlite
RUN mkdir -p /data && chown bun:bun /data
VOLUME /data
`
    : ""
}USER bun
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s CMD ["bun", "-e", "fetch('http://127.0.0.1:8080/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# --fast runs one process per CPU the container sees; with a CPU limit, say
# --processes N instead (docs/deployment.md).
CMD ["bun", "app.ts", "--fast"]
`;
}

const DOCKERIGNORE = `node_modules
dist
.git
.webfw-cache
*.sqlite
*.sqlite-*
.env
`;

const COMPOSE = `services:
  app:
    build: .
    ports:
      - "8080:8080"
    environment:
      DATABASE_URL: postgres://postgres:postgres@db:5432/app
    depends_on:
      db:
        condition: service_healthy
  db:
    image: postgres:17
    environment:
      POSTGRES_PASSWORD: postgres
      POSTGRES_DB: app
    healthcheck:
      test: ["CMD-SHELL", "pg_isready -U postgres"]
      interval: 2s
      retries: 15
    volumes:
      - pgdata:/var/lib/postgresql/data
volumes:
  pgdata: {}
`;

function readme(spec: ProjectSpec): string {
  const extra =
    spec.template === "sqlite"
      ? "\nThe notes API (`GET/POST /notes`, `GET /notes/:id`) stores data in SQLite (`bun:sqlite`), in `app.sqlite` unless `DATABASE_PATH` says otherwise.\n"
      : spec.template === "postgres"
        ? "\nThe notes API (`GET/POST /notes`, `GET /notes/:id`) stores data in Postgres through `Bun.sql`; set `DATABASE_URL` (see `.env.example`).\n"
        : "";
  const docker = spec.docker
    ? `
## Docker

\`\`\`sh
${spec.template === "postgres" ? "docker compose up --build" : `docker build -t ${spec.name} .\ndocker run --rm -p 8080:8080 ${spec.name}`}
\`\`\`
`
    : "";
  return `# ${spec.name}

A [webfw](https://www.npmjs.com/package/webfw) app.
${extra}
## Run

\`\`\`sh
bun install
bun app.ts --dev        # restarts on every change, http://127.0.0.1:8080
bun test                # starts the app on a free port and requests it
bun app.ts --fast       # production: one process per core
bun run build           # one executable in dist/app
\`\`\`

\`bun app.ts --help\` lists every flag.
${docker}`;
}
