// Grades a site with the MDN HTTP Observatory's own retriever, tests and grader (the package's
// `scan()` with explicit ports: `scan(hostname)` cannot name the HTTP and HTTPS ports of a local
// server). Usage: node grade.mjs <host> <httpPort> <httpsPort>; prints the scan as JSON.
import { existsSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { ALL_TESTS } from "@mdn/mdn-http-observatory/src/constants.js";
import { MINIMUM_SCORE_FOR_EXTRA_CREDIT } from "@mdn/mdn-http-observatory/src/grader/charts.js";
import { getGradeForScore, getScoreModifier } from "@mdn/mdn-http-observatory/src/grader/grader.js";
import { retrieve } from "@mdn/mdn-http-observatory/src/retriever/retriever.js";

// The package's install script downloads Chromium's HSTS preload list (installed here with
// --ignore-scripts: the machine may be offline). A local address is on no preload list, so an
// empty one grades it exactly as the full list would.
const root = dirname(dirname(createRequire(import.meta.url).resolve("@mdn/mdn-http-observatory")));
const preload = join(root, "conf", "hsts-preload.json");
if (!existsSync(preload)) writeFileSync(preload, "{}");

const [host, httpPort, httpsPort] = process.argv.slice(2);
const retrieved = await retrieve(host, { httpPort, httpsPort });
if (!retrieved.responses.auto) throw new Error("the site cannot be reached");
// The same arithmetic as the package's scanner/index.js.
let withExtraCredit = 100;
let uncurved = 100;
const tests = {};
for (const run of ALL_TESTS) {
  const result = run(retrieved);
  const modifier = getScoreModifier(result.result);
  withExtraCredit += modifier;
  if (modifier < 0) uncurved += modifier;
  tests[result.constructor.name] = { result: result.result, pass: result.pass, modifier };
}
const score = uncurved >= MINIMUM_SCORE_FOR_EXTRA_CREDIT ? withExtraCredit : uncurved;
const { grade } = getGradeForScore(score);
console.log(JSON.stringify({ grade, score, status: retrieved.responses.auto.status, tests }));
