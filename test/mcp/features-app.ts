/**
 * A webfw app that uses every part of the MCP call context, for the SDK-client
 * suites (features.test.ts): sampling, elicitation, roots, progress, logs,
 * cancellation, identity, dependencies, completion, subscriptions, structured
 * output and pagination. `events` records what the server side saw.
 */
import { AuthenticationHandler, BearerGetter, Identity, type Request, t, Webfw } from "../../src/index.ts";

class TokenAuth extends AuthenticationHandler {
  authenticate(request: Request): Identity | null {
    const token = this.tokenGetter.getToken(request);
    return token === "alice-token" ? new Identity({ claims: { user: "alice" } }) : null;
  }
}

export interface FeatureEvents {
  cancelled: string[];
  finished: string[];
}

export function featuresApp(events: FeatureEvents): Webfw {
  const app = new Webfw(import.meta.path);
  app.configureAuthentication(new TokenAuth(new BearerGetter()));
  app.injectGlobal({ greeting: "hello" });
  app.mcp.configure({ pageSize: 3 });

  app.mcp.tool(
    async ({ question }, ctx) => {
      const answer = await ctx.sample(question, { maxTokens: 50 });
      const content = Array.isArray(answer.content) ? answer.content[0] : answer.content;
      return `model said: ${content?.type === "text" ? content.text : "?"} (${answer.model})`;
    },
    { name: "ask", description: "Asks the client's model", args: { question: t.str() } },
  );

  app.mcp.tool(
    async (_args, ctx) => {
      const result = await ctx.elicit({
        message: "Proceed?",
        requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
      });
      return `action=${result.action} ok=${String(result.content?.ok)}`;
    },
    { name: "confirm", description: "Asks the user" },
  );

  app.mcp.tool(async (_args, ctx) => (await ctx.listRoots()).map((root) => root.uri).join(","), {
    name: "roots",
    description: "Lists the client's roots",
  });

  app.mcp.tool(
    async ({ steps }, ctx) => {
      for (let step = 1; step <= steps; step++) {
        await ctx.log("info", `step ${step}`);
        await ctx.log("debug", `detail ${step}`);
        await ctx.progress(step, steps, `step ${step} of ${steps}`);
        await Bun.sleep(5);
      }
      return `did ${steps} steps`;
    },
    { name: "work", description: "Logs and reports progress", args: { steps: t.int().min(1).max(10) } },
  );

  app.mcp.tool(
    async ({ id }, ctx) => {
      try {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, 10_000);
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            reject(ctx.signal.reason);
          });
        });
        events.finished.push(id);
        return "finished";
      } catch (error) {
        events.cancelled.push(id);
        throw error;
      }
    },
    { name: "slow", description: "Waits until cancelled", args: { id: t.str() } },
  );

  app.mcp.tool(
    (_args, ctx) =>
      `${String(ctx.identity?.claims.user ?? "anonymous")} ${String(ctx.globalDependencies.greeting)} ${ctx.request.headers.get("x-trace", "-")}`,
    { name: "whoami", description: "Identity, dependencies and the HTTP request" },
  );

  app.mcp.tool(({ a, b }) => ({ sum: a + b }), {
    name: "sum",
    title: "Sum",
    description: "Adds",
    args: { a: t.float(), b: t.float() },
    outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
    annotations: { readOnlyHint: true },
    icons: [{ src: "https://example.com/sum.png", mimeType: "image/png" }],
  });

  app.mcp.tool(({ tags }) => tags.join("+"), {
    name: "join",
    description: "A list argument without a default is required",
    args: { tags: t.list(t.str()) },
  });

  let counter = 0;
  app.mcp.resource("counter://value", () => String(counter), { name: "counter", mimeType: "text/plain" });
  app.mcp.tool(
    async () => {
      counter++;
      await app.mcp.notifyResourceUpdated("counter://value");
      return String(counter);
    },
    { name: "increment", description: "Changes counter://value" },
  );

  app.mcp.resource("users://{id}/profile", ({ id }) => `profile of ${id}`, {
    name: "profile",
    complete: { id: (value) => ["alice", "albert", "bob"].filter((name) => name.startsWith(value)) },
  });

  app.mcp.prompt(({ language }) => `Write in ${language}`, {
    name: "style",
    description: "A prompt with a completed argument",
    args: { language: t.str() },
    complete: {
      language: (value) => ["go", "golang", "typescript"].filter((name) => name.startsWith(value)),
    },
  });

  return app;
}
