/**
 * Every MCP feature in one webfw app: the tools, resources, prompts and
 * completions the official conformance suite (`@modelcontextprotocol/conformance`,
 * `server --suite all`) asks for, plus a few that show the rest of `app.mcp`.
 *
 *   PORT=3000 bun examples/mcp-everything.ts
 *   npx @modelcontextprotocol/conformance server --url http://localhost:3000/mcp --suite all
 *
 * test/mcp/conformance.test.ts runs exactly that.
 */

import { t, Webfw } from "../src/index.ts";

// A 1×1 red PNG and a minimal WAV, base64 (the suite checks the types, not the pictures).
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

const app = new Webfw(import.meta.path);

app.mcp.configure({ serverName: "webfw-everything", serverVersion: "1.0.0", retryIntervalMs: 500 });

// ---- tools: every kind of content ----

app.mcp.tool(() => "This is a simple text response for testing.", {
  name: "test_simple_text",
  description: "Tests simple text content response",
});

app.mcp.tool(() => [{ type: "image", data: PNG, mimeType: "image/png" }], {
  name: "test_image_content",
  description: "Tests image content response",
});

app.mcp.tool(() => [{ type: "audio", data: WAV, mimeType: "audio/wav" }], {
  name: "test_audio_content",
  description: "Tests audio content response",
});

app.mcp.tool(
  () => [
    {
      type: "resource",
      resource: {
        uri: "test://embedded-resource",
        mimeType: "text/plain",
        text: "This is an embedded resource content.",
      },
    },
  ],
  { name: "test_embedded_resource", description: "Tests embedded resource content response" },
);

app.mcp.tool(
  () => [
    { type: "text", text: "Multiple content types test:" },
    { type: "image", data: PNG, mimeType: "image/png" },
    {
      type: "resource",
      resource: {
        uri: "test://mixed-content-resource",
        mimeType: "application/json",
        text: JSON.stringify({ test: "data", value: 123 }),
      },
    },
  ],
  {
    name: "test_multiple_content_types",
    description: "Tests response with multiple content types (text, image, resource)",
  },
);

app.mcp.tool(
  () => [
    {
      type: "resource_link",
      uri: "test://static-text",
      name: "static-text",
      mimeType: "text/plain",
      description: "A link to a resource instead of its content",
    },
  ],
  { name: "test_resource_link", description: "Returns a resource link" },
);

// ---- tools: the call context ----

app.mcp.tool(
  async (_args, ctx) => {
    await ctx.log("info", "Tool execution started");
    await Bun.sleep(50);
    await ctx.log("info", "Tool processing data");
    await Bun.sleep(50);
    await ctx.log("info", "Tool execution completed");
    return "Tool with logging executed successfully";
  },
  { name: "test_tool_with_logging", description: "Tests tool that emits log messages during execution" },
);

app.mcp.tool(
  async (_args, ctx) => {
    for (const done of [0, 50, 100]) {
      await ctx.progress(done, 100, `Completed step ${done} of 100`);
      if (done < 100) await Bun.sleep(50);
    }
    return "Progress reported";
  },
  { name: "test_tool_with_progress", description: "Tests tool that reports progress notifications" },
);

app.mcp.tool(
  () => {
    throw new Error("This tool intentionally returns an error for testing");
  },
  { name: "test_error_handling", description: "Tests error response handling" },
);

app.mcp.tool(
  async ({ prompt }, ctx) => {
    const answer = await ctx.sample({
      messages: [{ role: "user", content: { type: "text", text: prompt } }],
      maxTokens: 100,
    });
    const content = Array.isArray(answer.content) ? answer.content[0] : answer.content;
    return `LLM response: ${content?.type === "text" ? content.text : "(no text)"}`;
  },
  {
    name: "test_sampling",
    description: "Tests server-initiated sampling (LLM completion request)",
    args: { prompt: t.str().describe("The prompt to send to the LLM") },
  },
);

app.mcp.tool(
  async ({ message }, ctx) => {
    const result = await ctx.elicit({
      message,
      requestedSchema: {
        type: "object",
        properties: { response: { type: "string", description: "User's response" } },
        required: ["response"],
      },
    });
    return `User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  },
  {
    name: "test_elicitation",
    description: "Tests server-initiated elicitation (user input request)",
    args: { message: t.str().describe("The message to show the user") },
  },
);

app.mcp.tool(
  async (_args, ctx) => {
    const result = await ctx.elicit({
      message: "Please review and update the form fields with defaults",
      requestedSchema: {
        type: "object",
        properties: {
          name: { type: "string", description: "User name", default: "John Doe" },
          age: { type: "integer", description: "User age", default: 30 },
          score: { type: "number", description: "User score", default: 95.5 },
          status: {
            type: "string",
            description: "User status",
            enum: ["active", "inactive", "pending"],
            default: "active",
          },
          verified: { type: "boolean", description: "Verification status", default: true },
        },
        required: [],
      },
    });
    return `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  },
  {
    name: "test_elicitation_sep1034_defaults",
    description: "Tests elicitation with default values per SEP-1034",
  },
);

app.mcp.tool(
  async (_args, ctx) => {
    const result = await ctx.elicit({
      message: "Please select options from the enum fields",
      requestedSchema: {
        type: "object",
        properties: {
          untitledSingle: {
            type: "string",
            description: "Select one option",
            enum: ["option1", "option2", "option3"],
          },
          titledSingle: {
            type: "string",
            description: "Select one option with titles",
            oneOf: [
              { const: "value1", title: "First Option" },
              { const: "value2", title: "Second Option" },
              { const: "value3", title: "Third Option" },
            ],
          },
          legacyEnum: {
            type: "string",
            description: "Select one option (legacy)",
            enum: ["opt1", "opt2", "opt3"],
            enumNames: ["Option One", "Option Two", "Option Three"],
          },
          untitledMulti: {
            type: "array",
            description: "Select multiple options",
            minItems: 1,
            maxItems: 3,
            items: { type: "string", enum: ["option1", "option2", "option3"] },
          },
          titledMulti: {
            type: "array",
            description: "Select multiple options with titles",
            minItems: 1,
            maxItems: 3,
            items: {
              anyOf: [
                { const: "value1", title: "First Choice" },
                { const: "value2", title: "Second Choice" },
                { const: "value3", title: "Third Choice" },
              ],
            },
          },
        },
        required: [],
      },
    });
    return `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  },
  {
    name: "test_elicitation_sep1330_enums",
    description: "Tests elicitation with enum schema improvements per SEP-1330",
  },
);

// A raw JSON Schema 2020-12 input schema is listed exactly as given ($schema, $defs, additionalProperties).
app.mcp.tool((input) => `JSON Schema 2020-12 tool called with: ${JSON.stringify(input)}`, {
  name: "json_schema_2020_12_tool",
  description: "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
  inputSchema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    $defs: {
      address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } },
    },
    properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
    additionalProperties: false,
  },
});

// The stream of this call is closed mid-call; the client reconnects (GET + Last-Event-ID) for the result.
app.mcp.tool(
  async (_args, ctx) => {
    ctx.closeStream();
    await Bun.sleep(100);
    return "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.";
  },
  {
    name: "test_reconnection",
    description: "Tests SSE stream disconnection and client reconnection (SEP-1699)",
  },
);

// Structured output, title, annotations and icons.
app.mcp.tool(({ a, b }) => ({ sum: a + b, product: a * b }), {
  name: "calculate",
  title: "Calculator",
  description: "Sum and product of two numbers",
  args: { a: t.float(), b: t.float() },
  outputSchema: {
    type: "object",
    properties: { sum: { type: "number" }, product: { type: "number" } },
    required: ["sum", "product"],
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  icons: [{ src: `data:image/png;base64,${PNG}`, mimeType: "image/png", sizes: ["1x1"] }],
});

// ---- resources ----

app.mcp.resource("test://static-text", () => "This is the content of the static text resource.", {
  name: "static-text",
  title: "Static Text Resource",
  description: "A static text resource for testing",
  mimeType: "text/plain",
});

app.mcp.resource("test://static-binary", () => Buffer.from(PNG, "base64"), {
  name: "static-binary",
  title: "Static Binary Resource",
  description: "A static binary resource (image) for testing",
  mimeType: "image/png",
});

app.mcp.resource(
  "test://template/{id}/data",
  ({ id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
  {
    name: "template",
    title: "Resource Template",
    description: "A resource template with parameter substitution",
    mimeType: "application/json",
    complete: { id: (value) => ["1", "2", "3", "123"].filter((id) => id.startsWith(value)) },
  },
);

let watched = "Watched resource content";
app.mcp.resource("test://watched-resource", () => watched, {
  name: "watched-resource",
  title: "Watched Resource",
  description: "A resource that changes; subscribers are told",
  mimeType: "text/plain",
});

// Changing the watched resource tells every subscribed session (notifications/resources/updated).
app.mcp.tool(
  async ({ text }) => {
    watched = text;
    await app.mcp.notifyResourceUpdated("test://watched-resource");
    return "updated";
  },
  {
    name: "update_watched_resource",
    description: "Changes test://watched-resource and notifies its subscribers",
    args: { text: t.str() },
  },
);

// ---- prompts ----

app.mcp.prompt(() => "This is a simple prompt for testing.", {
  name: "test_simple_prompt",
  title: "Simple Test Prompt",
  description: "A simple prompt without arguments",
});

app.mcp.prompt(({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`, {
  name: "test_prompt_with_arguments",
  title: "Prompt With Arguments",
  description: "A prompt with required arguments",
  args: { arg1: t.str().describe("First test argument"), arg2: t.str().describe("Second test argument") },
  complete: { arg1: (value) => ["alpha", "beta", "gamma"].filter((word) => word.startsWith(value)) },
});

app.mcp.prompt(
  ({ resourceUri }) => [
    {
      role: "user",
      content: {
        type: "resource",
        resource: {
          uri: resourceUri,
          mimeType: "text/plain",
          text: "Embedded resource content for testing.",
        },
      },
    },
    { role: "user", content: "Please process the embedded resource above." },
  ],
  {
    name: "test_prompt_with_embedded_resource",
    title: "Prompt With Embedded Resource",
    description: "A prompt that includes an embedded resource",
    args: { resourceUri: t.str().describe("URI of the resource to embed") },
  },
);

app.mcp.prompt(
  () => [
    { role: "user", content: { type: "image", data: PNG, mimeType: "image/png" } },
    { role: "user", content: "Please analyze the image above." },
  ],
  {
    name: "test_prompt_with_image",
    title: "Prompt With Image",
    description: "A prompt that includes image content",
  },
);

// Not a conformance scenario: an MCP Apps UI (docs/mcp-apps.md), so the suite runs against an app that has one.
app.mcp.tool(({ name }) => ({ greeting: `Hello, ${name}!` }), {
  name: "test_tool_with_ui",
  description: "A greeting that MCP Apps hosts show in a small UI",
  args: { name: t.str() },
  outputSchema: { type: "object", properties: { greeting: { type: "string" } }, required: ["greeting"] },
  ui: { template: "<h1>{{greeting}}</h1>", prefersBorder: true },
});

if (import.meta.main) {
  await app.start({ port: Number(process.env.PORT ?? 3000) });
}

export default app;
