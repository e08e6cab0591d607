import { t } from "../../src/args/t.ts";
import type { AuthenticationHandler } from "../../src/auth/handler.ts";
import { type McpEndpoint, standaloneEndpoint } from "../../src/mcp/endpoint.ts";
import { Mcp } from "../../src/mcp/index.ts";
import { HttpError } from "../../src/response/errors.ts";

/** An Mcp with one of everything, shared by the raw-HTTP and SDK suites. */
export function buildMcp(): Mcp {
  const mcp = new Mcp();
  mcp.tool(({ a, b }) => String(a + b), {
    name: "add",
    description: "Add two integers",
    args: { a: t.int(), b: t.int().describe("second operand") },
  });
  mcp.tool(
    async function greet({ name, excited }) {
      await Bun.sleep(1);
      return `Hello, ${name}${excited ? "!" : "."}`;
    },
    { args: { name: t.str(), excited: t.bool().default(false) } },
  );
  mcp.tool(
    ({ a, b }) => {
      if (b === 0) throw new HttpError(400, "division by zero");
      return a / b;
    },
    { name: "divide", args: { a: t.float(), b: t.float() } },
  );
  mcp.tool(({ items }) => ({ count: items.length, items }), {
    name: "summarise",
    args: { items: t.list(t.str()), meta: t.optional(t.dict()) },
  });
  mcp.tool(({ city }) => `sunny in ${String(city)}`, {
    name: "weather",
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  });
  mcp.tool(function noArgs() {
    return "nothing";
  });
  mcp.resource("config://app", () => "debug=false", { name: "config", mimeType: "text/plain" });
  mcp.resource("greeting://{name}", ({ name }) => `Hello, ${name}!`, { description: "A greeting" });
  mcp.resource("users://{id}/posts/{post}", async ({ id, post }) => JSON.stringify({ id, post }), {
    name: "post",
    mimeType: "application/json",
  });
  mcp.resource("files://{+path}", ({ path }) => `file at ${path}`, { name: "file" });
  mcp.resource("broken://x", () => {
    throw new Error("disk on fire");
  });
  mcp.prompt(({ code }) => `Please review this code:\n\n${code}`, {
    name: "review",
    description: "Review code",
    args: { code: t.str().describe("the code") },
  });
  mcp.prompt(
    ({ topic, count }) => [
      { role: "user", content: `Tell me ${count} facts about ${topic}` },
      { role: "assistant", content: { type: "text", text: "Sure." } },
    ],
    { name: "facts", args: { topic: t.str(), count: t.int().default(3) } },
  );
  mcp.prompt(({ lang }) => `Translate to ${String(lang)}`, {
    name: "translate",
    arguments: [{ name: "lang", description: "target language", required: true }],
  });
  mcp.prompt(() => [{ role: "robot", content: "beep" }] as never, { name: "badPrompt" });
  return mcp;
}

export interface Served {
  url: string;
  endpoint: McpEndpoint;
  stop(): Promise<void>;
}

/** An endpoint for `mcp` outside any app build, with the given authentication (default: none). */
export function endpointOf(mcp: Mcp, authentication: AuthenticationHandler | null = null): McpEndpoint {
  return standaloneEndpoint(mcp, authentication);
}

/** Serves an endpoint of `mcp` on 127.0.0.1 with an ephemeral port, at `/mcp`. */
export function serve(mcp: Mcp, authentication: AuthenticationHandler | null = null): Served {
  const endpoint = endpointOf(mcp, authentication);
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (request) => {
      if (new URL(request.url).pathname !== "/mcp") return new Response("Not Found", { status: 404 });
      return endpoint.handle(request);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/mcp`,
    endpoint,
    stop: async () => {
      await server.stop(true);
      await endpoint.close();
    },
  };
}
