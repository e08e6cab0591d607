/**
 * The MCP Inspector CLI (`@modelcontextprotocol/inspector --cli … --transport http`) against the
 * example app, run as a subprocess exactly as a user would: it must work offline.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import app from "../../examples/mcp-server.ts";
import { runInspector } from "../helpers/inspector.ts";

let url: string;
let stop: () => unknown;

beforeAll(async () => {
  // The example app as the core serves it: routing of `/mcp`, global middlewares, the works.
  const server = await app.start({ port: 0, host: "127.0.0.1" });
  url = `http://127.0.0.1:${server.port}/mcp`;
  stop = () => server.stop();
});

afterAll(async () => {
  await stop?.();
});

function inspector(...args: string[]) {
  return runInspector(url, ...args);
}

describe("Inspector CLI", () => {
  test("tools/list lists the example's tools with their schemas", async () => {
    const run = await inspector("--method", "tools/list");
    expect(run.stderr).not.toContain("Error");
    expect(run.code).toBe(0);
    const { tools } = JSON.parse(run.stdout);
    expect(tools.map((tool: { name: string }) => tool.name)).toEqual(["add", "divide", "shout"]);
    expect(tools[0]).toEqual({
      name: "add",
      description: "Add two integers",
      inputSchema: {
        type: "object",
        properties: { a: { type: "integer" }, b: { type: "integer" } },
        required: ["a", "b"],
      },
    });
  });

  test("tools/call converts the CLI's key=value arguments", async () => {
    const run = await inspector("--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "b=40");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ content: [{ type: "text", text: "42" }], isError: false });
  });

  test("resources and prompts", async () => {
    const templates = await inspector("--method", "resources/templates/list");
    expect(templates.code).toBe(0);
    expect(JSON.parse(templates.stdout).resourceTemplates[0].uriTemplate).toBe("greeting://{name}");
    const read = await inspector("--method", "resources/read", "--uri", "greeting://Ada");
    expect(read.code).toBe(0);
    expect(JSON.parse(read.stdout).contents[0].text).toBe("Hello, Ada!");
    const prompt = await inspector(
      "--method",
      "prompts/get",
      "--prompt-name",
      "explain",
      "--prompt-args",
      "topic=owls",
    );
    expect(prompt.code).toBe(0);
    expect(JSON.parse(prompt.stdout).messages).toHaveLength(2);
    // Three Inspector runs of ~1.5 s each: more than bun's default 5 s on a loaded machine.
  }, 30_000);
});
