/**
 * The MDN HTTP Observatory's grade of examples/secure-headers.ts (docs/security.md, "Secure
 * response headers"): served over HTTPS (a self-signed certificate the scanner is told to trust
 * through NODE_EXTRA_CA_CERTS) with a plain-HTTP server that redirects to it, as a deployment
 * would be, and scanned by the package's own retriever, tests and grader (grade.mjs; its
 * `scan(hostname)` cannot name two ports of one local host). The package lives in
 * test/secure-headers/observatory (installed with --ignore-scripts); without it the suite is
 * skipped with the reason printed, and fails under CI=true.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Server } from "bun";
import example from "../../examples/secure-headers.ts";
import type { ServerHandle } from "../../src/index.ts";
import { runCommand } from "../helpers/run-command.ts";
import { describeWithProgram } from "../helpers/system-program.ts";
import { makeCert, type TestCert } from "../helpers/tls.ts";

const FOLDER = join(import.meta.dir, "observatory");
const PACKAGE = join(FOLDER, "node_modules", "@mdn", "mdn-http-observatory", "package.json");
const INSTALL = "npm install --prefix test/secure-headers/observatory --ignore-scripts (.ci/run does it)";

interface Grade {
  grade: string;
  score: number;
  tests: Record<string, { result: string; pass: boolean; modifier: number }>;
}

async function grade(httpPort: number, httpsPort: number, ca: string): Promise<Grade> {
  const { code, stdout, stderr } = await runCommand(
    ["node", join(FOLDER, "grade.mjs"), "127.0.0.1", String(httpPort), String(httpsPort)],
    { env: { ...process.env, NODE_EXTRA_CA_CERTS: ca } },
  );
  if (code !== 0) throw new Error(`grade.mjs failed (${code}): ${stderr}`);
  return JSON.parse(stdout) as Grade;
}

describeWithProgram(PACKAGE, INSTALL, "MDN HTTP Observatory", () => {
  let cert: TestCert;
  let server: ServerHandle;
  let redirect: Server<unknown>;

  beforeAll(async () => {
    cert = await makeCert();
    server = await example.start({ port: 0, host: "127.0.0.1", tls: { cert: cert.cert, key: cert.key } });
    const httpsPort = new URL(server.url).port;
    redirect = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (request) =>
        Response.redirect(`https://127.0.0.1:${httpsPort}${new URL(request.url).pathname}`, 301),
    });
  });

  afterAll(async () => {
    await server?.stop(true);
    redirect?.stop(true);
    cert?.remove();
  });

  test("the example grades A+ with every test passed", async () => {
    const result = await grade(redirect.port as number, Number(new URL(server.url).port), cert.cert);
    expect(result.grade).toBe("A+");
    expect(result.score).toBeGreaterThanOrEqual(100);
    const failed = Object.entries(result.tests).filter(([, t]) => !t.pass);
    expect(failed).toEqual([]);
    expect(result.tests["content-security-policy"]?.modifier).toBe(0);
    expect(result.tests["strict-transport-security"]?.result).toBe(
      "hsts-implemented-max-age-at-least-six-months",
    );
    expect(result.tests["x-frame-options"]?.result).toBe("x-frame-options-implemented-via-csp");
  }, 60_000);
});
