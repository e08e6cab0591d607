/**
 * The documents against tools no one here wrote (docs/openapi.md, "Checked by outside tools"):
 * every request of a corpus (each operation, valid and invalid) through Stoplight Prism's
 * validating proxy in front of the running app, with no violation of the document by any answer
 * and no invalid request answered 2xx; `redocly lint` (recommended rules) at 0 errors; an SDK from
 * `@hey-api/openapi-ts` compiled with `tsc --strict`, typing every declared answer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import bookshelf from "../../examples/openapi-app.ts";
import { everythingApp } from "../../examples/openapi-everything.ts";
import showcase from "../../examples/showcase.ts";
import type { Webfw } from "../../src/index.ts";
import { initializeMessage } from "../mcp/helpers/raw-session.ts";
import type { Json } from "./helpers.ts";
import {
  bin,
  generateSdk,
  type PrismProxy,
  type Probe,
  redoclyErrors,
  runCorpus,
  startPrism,
  typeBlock,
  typeStem,
  writeDocument,
} from "./yardstick-tools.ts";

const TOOLS = ["prism", "redocly", "openapi-ts", "tsc"].filter((name) => !existsSync(bin(name)));
const AUTH = { authorization: "Bearer secret-token" };
const JSON_TYPE = { "content-type": "application/json" };

/** The MCP endpoint of an app that serves one: initialize, the GET stream, DELETE. */
const MCP_PROBES: Probe[] = [
  {
    method: "POST",
    path: "/mcp",
    headers: { ...JSON_TYPE, accept: "application/json, text/event-stream" },
    body: JSON.stringify(initializeMessage({ id: 1, client: "probe", protocolVersion: "2025-06-18" })),
  },
  { method: "GET", path: "/mcp", headers: { accept: "text/event-stream" } },
  { method: "DELETE", path: "/mcp" },
];
const FORM_TYPE = { "content-type": "application/x-www-form-urlencoded" };

function multipart(fields: Record<string, string>, file?: [string, string], tags?: string[]): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  for (const tag of tags ?? []) form.append("tags", tag);
  if (file) form.append(file[0], new Blob(["hello"], { type: "text/plain" }), file[1]);
  return form;
}

const corpora: Record<string, { app: () => Webfw; probes: Probe[] }> = {
  bookshelf: {
    app: () => bookshelf,
    probes: [
      { method: "GET", path: "/health" },
      { method: "GET", path: "/books" },
      { method: "GET", path: "/books?limit=1&author=Herbert" },
      { method: "GET", path: "/books?limit=x", invalid: true },
      { method: "GET", path: "/books/1" },
      { method: "GET", path: "/books/999" },
      { method: "GET", path: "/books/x", invalid: true },
      {
        method: "POST",
        path: "/books",
        headers: { ...AUTH, ...JSON_TYPE },
        body: '{"title":"A","author":"B","year":2000}',
      },
      { method: "POST", path: "/books", headers: { ...AUTH, ...FORM_TYPE }, body: "title=A&author=B" },
      { method: "POST", path: "/books", headers: AUTH, body: multipart({ title: "A", author: "B" }) },
      {
        method: "POST",
        path: "/books",
        headers: { ...AUTH, ...JSON_TYPE },
        body: '{"title":"A","author":"B","year":"2000"}',
        invalid: true,
      },
      {
        method: "POST",
        path: "/books",
        headers: { ...AUTH, ...JSON_TYPE },
        body: '{"title":""}',
        invalid: true,
      },
      {
        method: "POST",
        path: "/books",
        headers: { ...AUTH, ...JSON_TYPE },
        invalid: true,
      },
      {
        method: "POST",
        path: "/books",
        headers: { ...AUTH, "content-type": "text/csv" },
        body: "a,b",
        invalid: true,
      },
      {
        method: "POST",
        path: "/books",
        headers: JSON_TYPE,
        body: '{"title":"A","author":"B"}',
        invalid: true,
      },
      { method: "DELETE", path: "/books/2", headers: AUTH },
      { method: "DELETE", path: "/books/2", headers: AUTH },
      { method: "GET", path: "/covers/dune.png" },
    ],
  },
  showcase: {
    app: () => showcase,
    probes: [
      { method: "GET", path: "/" },
      { method: "GET", path: "/hello/ada" },
      { method: "GET", path: "/index.html", redirect: true },
      // A WebSocket route without the upgrade: 426, as documented.
      { method: "GET", path: "/live" },
      ...MCP_PROBES,
      { method: "GET", path: "/add?a=2&b=40" },
      { method: "GET", path: "/add?a=2" },
      { method: "GET", path: "/add?a=x", invalid: true },
      { method: "GET", path: "/add", invalid: true },
      { method: "GET", path: "/todos" },
      { method: "POST", path: "/todos", headers: JSON_TYPE, body: '{"title":"write"}' },
      { method: "POST", path: "/todos", headers: FORM_TYPE, body: "title=read&done=yes" },
      {
        method: "POST",
        path: "/todos",
        headers: JSON_TYPE,
        body: '{"title":"x","done":"yes"}',
        invalid: true,
      },
      { method: "POST", path: "/todos", headers: JSON_TYPE, body: "{}", invalid: true },
      { method: "DELETE", path: "/todos/1" },
      { method: "DELETE", path: "/todos/1" },
      { method: "DELETE", path: "/todos/x", invalid: true },
      { method: "GET", path: "/health" },
      { method: "GET", path: "/me", headers: AUTH },
      { method: "GET", path: "/me", invalid: true },
      { method: "GET", path: "/api/v1/version" },
    ],
  },
};

const everythingProbes: Probe[] = [
  { method: "GET", path: "/health" },
  { method: "GET", path: "/search?q=lamp" },
  { method: "GET", path: "/search?q=lamp&limit=5&minPrice=1.5&inStock=yes&tag=a&tag=b&sort=price" },
  { method: "GET", path: `/search?q=l&inStock=off&filter=${encodeURIComponent('{"a":1}')}` },
  { method: "GET", path: "/search?q=", invalid: true },
  { method: "GET", path: "/search?q=l&limit=0", invalid: true },
  { method: "GET", path: "/search?q=l&inStock=maybe", invalid: true },
  { method: "GET", path: "/search?q=l&sort=size", invalid: true },
  { method: "GET", path: "/search", invalid: true },
  { method: "GET", path: "/items" },
  { method: "GET", path: "/items/1" },
  { method: "GET", path: "/items/42" },
  { method: "GET", path: "/items/one", invalid: true },
  {
    method: "POST",
    path: "/items",
    headers: { ...AUTH, ...JSON_TYPE },
    body: '{"name":"cup","price":3,"tags":["kitchen"]}',
  },
  { method: "POST", path: "/items", headers: { ...AUTH, ...FORM_TYPE }, body: "name=pan&price=5&inStock=no" },
  {
    method: "POST",
    path: "/items",
    headers: AUTH,
    body: multipart({ name: "pot", price: "7.5", inStock: "true" }),
  },
  {
    method: "POST",
    path: "/items",
    headers: { ...AUTH, ...JSON_TYPE },
    body: '{"name":"cup","price":"5","tags":[]}',
    invalid: true,
  },
  {
    method: "POST",
    path: "/items",
    headers: { ...AUTH, ...JSON_TYPE },
    body: '{"name":"cup","price":1,"inStock":"yes","tags":[]}',
    invalid: true,
  },
  {
    method: "POST",
    path: "/items",
    headers: { ...AUTH, ...FORM_TYPE },
    body: "name=pan&price=cheap",
    invalid: true,
  },
  {
    method: "POST",
    path: "/items",
    headers: { ...AUTH, "content-type": "text/plain" },
    body: "cup",
    invalid: true,
  },
  {
    method: "POST",
    path: "/items",
    headers: JSON_TYPE,
    body: '{"name":"cup","price":3,"tags":[]}',
    invalid: true,
  },
  { method: "DELETE", path: "/items/1", headers: AUTH },
  { method: "DELETE", path: "/items/1", headers: AUTH },
  {
    method: "POST",
    path: "/customers",
    headers: JSON_TYPE,
    body: '{"name":"Ada","address":{"street":"Main","city":"X"}}',
  },
  {
    method: "POST",
    path: "/customers",
    headers: JSON_TYPE,
    body: '{"name":"Ada","address":{"street":"Main"}}',
    invalid: true,
  },
  { method: "GET", path: "/files/a.txt" },
  { method: "GET", path: "/report" },
  { method: "POST", path: "/upload", body: multipart({ note: "hi" }, ["doc", "a.txt"]) },
  { method: "POST", path: "/upload", headers: JSON_TYPE, body: '{"a":1}' },
  { method: "POST", path: "/stream-upload", body: multipart({ note: "hi" }, ["doc", "a.txt"]) },
  { method: "POST", path: "/stream-upload", headers: JSON_TYPE, body: "{}", invalid: true },
  { method: "PUT", path: "/raw", headers: { "content-type": "application/octet-stream" }, body: "12345" },
  { method: "GET", path: "/anything?kind=json" },
  { method: "GET", path: "/anything?kind=text" },
  { method: "GET", path: "/anything?kind=none" },
  { method: "GET", path: "/anything?kind=xml", invalid: true },
  { method: "GET", path: "/limited" },
  { method: "GET", path: "/ws/echo" },
  ...MCP_PROBES,
];
corpora["everything (text errors)"] = { app: () => everythingApp("text"), probes: everythingProbes };
corpora["everything (problem details)"] = { app: () => everythingApp("problem"), probes: everythingProbes };

const missing = TOOLS.length > 0 ? `missing ${TOOLS.join(", ")} (npm install)` : null;
if (missing !== null && process.env.CI !== "true")
  console.log(`skipped test/openapi/yardsticks.test.ts: ${missing}`);
const suite = missing !== null && process.env.CI !== "true" ? describe.skip : describe;

for (const [name, corpus] of Object.entries(corpora)) {
  suite(`${name}: outside tools`, () => {
    let server: { port: number; stop(): Promise<void> | void } | null = null;
    let proxy: PrismProxy | null = null;
    let written: { dir: string; file: string; doc: Json };

    beforeAll(async () => {
      if (missing !== null) throw new Error(`${missing}; CI=true, so this fails instead of skipping`);
      const app = corpus.app();
      written = await writeDocument(app, name.replace(/\W+/g, "-"));
      server = await app.start({ port: 0, host: "127.0.0.1" });
      proxy = await startPrism(written.file, `http://127.0.0.1:${server.port}`);
    }, 60_000);

    afterAll(async () => {
      proxy?.stop();
      await server?.stop();
    });

    test("Prism: no answer breaks the document, no invalid request is accepted", async () => {
      const findings = await runCorpus(
        proxy as PrismProxy,
        corpus.probes.filter((probe) => probe.redirect !== true),
      );
      if (findings.length > 0) console.error(JSON.stringify(findings, null, 2));
      expect(findings).toEqual([]);
      for (const probe of corpus.probes.filter((each) => each.redirect === true)) {
        const answer = await fetch(`http://127.0.0.1:${server?.port}${probe.path}`, { redirect: "manual" });
        const operation = (written.doc.paths as Record<string, Record<string, { responses: Json }>>)[
          probe.path
        ];
        const declared = Object.keys(operation?.[probe.method.toLowerCase()]?.responses ?? {});
        expect(declared, `${probe.method} ${probe.path} answers a declared status`).toContain(
          String(answer.status),
        );
      }
      // Every documented operation is in the corpus.
      const documented = Object.entries(written.doc.paths as Record<string, Json>).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
      );
      const sent = corpus.probes.map((probe) => `${probe.method} ${probe.path.split("?")[0]}`);
      for (const operation of documented) {
        const pattern = new RegExp(
          `^${operation.replace(/\{[^}]+\}/g, "[^/]+").replace(/[.*+?^$()|[\]\\]/g, (c) => (c === "[" || c === "]" || c === "^" || c === "+" ? c : `\\${c}`))}$`,
        );
        expect(
          sent.some((probe) => pattern.test(probe)),
          `${operation} is probed`,
        ).toBe(true);
      }
    }, 60_000);

    test("redocly lint (recommended): no error", () => {
      const { errors, report } = redoclyErrors(written.file);
      if (errors > 0) console.error(report);
      expect(errors).toBe(0);
    }, 60_000);

    test("@hey-api/openapi-ts SDK compiles with tsc --strict and types every declared answer", () => {
      const sdk = generateSdk(written.dir, written.file);
      if (!sdk.ok) console.error(sdk.tsc);
      expect(sdk.ok).toBe(true);
      for (const [path, item] of Object.entries(written.doc.paths as Record<string, Record<string, Json>>)) {
        // MCP messages are JSON-RPC, open by design (the protocol's own SDKs type them).
        if (path === "/mcp") continue;
        for (const operation of Object.values(item)) {
          const declared = Object.entries(operation.responses as Record<string, Json>).filter(
            ([status, response]) =>
              /^2/.test(status) &&
              Object.values((response.content ?? {}) as Record<string, Json>).some(
                (m) =>
                  m.schema !== undefined &&
                  Object.keys(m.schema as Json).length > 0 &&
                  !("*/*" in (response.content as Json)),
              ),
          );
          if (declared.length === 0) continue;
          const block = typeBlock(sdk.types, `${typeStem(operation.operationId as string)}Responses`);
          expect(block, `${operation.operationId} has a Responses type`).not.toBeNull();
          expect(block as string, `${operation.operationId}'s answers are typed`).not.toContain("unknown");
        }
      }
    }, 120_000);
  });
}
