/**
 * `webfw examples/workers.ts --dev --workers 2`: an offloaded handler's span, recorded in its
 * Worker, joins the request's waterfall beside the main thread's server span (docs/dashboard.md).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { waitFor } from "../cli/helpers.ts";
import { type DevServer, startDev } from "./helpers.ts";

let dev: DevServer;
beforeAll(async () => {
  dev = await startDev("examples/workers.ts", ["--workers", "2"]);
}, 30_000);
afterAll(async () => {
  await dev?.stop();
});

test("the trace of an offloaded request holds the Worker's span", async () => {
  const id = `offload-${Date.now()}`;
  const response = await fetch(`${dev.url}/hash?text=abc&rounds=10`, { headers: { "x-request-id": id } });
  expect(response.status).toBe(200);
  const detail = await waitFor(
    async () => {
      const found = await fetch(`${dev.url}/_webfw/api/requests/${id}`);
      if (found.status !== 200) return undefined;
      const value = (await found.json()) as {
        spans: { name: string; thread: string; parentId: string | null }[];
      };
      return value.spans.some((span) => span.thread.startsWith("worker ")) ? value : undefined;
    },
    2000,
    "the Worker's span",
  );
  const server = detail.spans.find((span) => span.thread === "main" && span.name === "GET /hash");
  const worker = detail.spans.find((span) => span.thread.startsWith("worker "));
  expect(server).toBeDefined();
  expect(worker?.name).toBe("handler GET /hash");
  expect(worker?.parentId).not.toBeNull();
});
