/**
 * An MCP server: tools, resources and prompts on `POST /mcp`.
 *
 *   bun examples/mcp-server.ts --port 8080
 *   npx @modelcontextprotocol/inspector --cli http://127.0.0.1:8080/mcp --transport http --method tools/list
 */
import { t, Webfw } from "../src/index.ts";

const app = new Webfw(import.meta.path);

app.mcp.configure({ serverName: "webfw-example", serverVersion: "1.0.0" });

app.mcp.tool(({ a, b }) => String(a + b), {
  name: "add",
  description: "Add two integers",
  args: { a: t.int(), b: t.int() },
});

app.mcp.tool(
  ({ a, b }) => {
    // A thrown error reaches the client as an `isError` result with this message.
    if (b === 0) throw new Error("cannot divide by zero");
    return String(a / b);
  },
  {
    name: "divide",
    description: "Divide a by b",
    args: { a: t.float(), b: t.float().describe("the divisor") },
  },
);

app.mcp.tool(
  async function shout({ text, times }) {
    return Array.from({ length: times }, () => text.toUpperCase()).join(" ");
  },
  { description: "Repeat text in capitals", args: { text: t.str(), times: t.int().default(1) } },
);

app.mcp.resource("config://app", () => JSON.stringify({ theme: "dark", version: 1 }), {
  name: "config",
  description: "Application settings",
  mimeType: "application/json",
});

app.mcp.resource("greeting://{name}", ({ name }) => `Hello, ${name}!`, {
  name: "greeting",
  description: "A personal greeting",
});

app.mcp.prompt(({ code, language }) => `Review this ${language} code and list its bugs:\n\n${code}`, {
  name: "review-code",
  description: "Ask for a code review",
  args: { code: t.str().describe("the code to review"), language: t.str().default("TypeScript") },
});

app.mcp.prompt(
  ({ topic }) => [
    { role: "user", content: `Explain ${topic} in one paragraph.` },
    { role: "assistant", content: `Here is a short explanation of ${topic}:` },
  ],
  { name: "explain", args: { topic: t.str() } },
);

// A normal route next to the MCP endpoint.
app.get("/", () => "MCP server: POST /mcp");

if (import.meta.main) app.start({ port: Number(process.env.PORT ?? 8080) });

export default app;
