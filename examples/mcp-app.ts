/**
 * MCP Apps: tools whose results hosts show as interactive UIs (docs/mcp-apps.md).
 *
 * - `sales_report` is a route (`GET /sales/:region`) exposed as a tool with a Mustache
 *   template UI: the host's iframe renders the route's JSON, and its "Next" button calls the
 *   tool again through the host.
 * - `counter` has a UI written with the ext-apps `App` client (examples/mcp-app/counter.ts),
 *   bundled with its page into one HTML file by Bun; its button calls `increment`, a tool
 *   only the UI sees (`visibility: ["app"]`).
 *
 *   bun examples/mcp-app.ts --port 8080
 *   npx @modelcontextprotocol/inspector --cli http://127.0.0.1:8080/mcp --transport http --method resources/list
 *
 * Clients without the extension get the same tools, text and structured content, without UIs.
 */
import { HttpError, t, Webfw } from "../src/index.ts";

const MONTHS = ["Jan", "Feb", "Mar", "Apr"];
const SALES: Record<string, number[]> = {
  north: [12, 19, 7, 24],
  south: [8, 11, 15, 9],
  west: [20, 14, 18, 26],
};
const REGIONS = Object.keys(SALES);

const SALES_TEMPLATE = `
<style>
  body { font: 14px system-ui, sans-serif; margin: 12px; }
  .row { display: flex; align-items: center; gap: 8px; margin: 4px 0; }
  .row span { width: 32px; }
  .bar { background: #2563eb; color: #fff; padding: 2px 6px; border-radius: 3px; }
  .error { color: #b91c1c; }
</style>
{{^ready}}<p>Loading the sales of {{input.region}}…</p>{{/ready}}
{{#ready}}
  {{#isError}}<p class="error">{{text}}</p>{{/isError}}
  {{^isError}}
    <h2>Sales: {{region}}</h2>
    <p class="total">Total: {{total}}</p>
    {{#bars}}<div class="row"><span>{{month}}</span><div class="bar" style="width: {{width}}%">{{value}}</div></div>{{/bars}}
    <button data-mcp-tool="sales_report" data-mcp-args='{"region": "{{next}}"}'>Next: {{next}}</button>
  {{/isError}}
{{/ready}}
{{#error}}<p class="error">{{error}}</p>{{/error}}
`;

const app = new Webfw(import.meta.path);
app.mcp.configure({ serverName: "sales", serverVersion: "1.0.0" });

app.get(
  "/sales/:region",
  ({ args }) => {
    const months = SALES[args.region];
    if (months === undefined) throw new HttpError(404, `no region '${args.region}'`);
    const max = Math.max(...months);
    const next = REGIONS[(REGIONS.indexOf(args.region) + 1) % REGIONS.length];
    return {
      region: args.region,
      total: months.reduce((sum, value) => sum + value, 0),
      bars: months.map((value, index) => ({
        month: MONTHS[index],
        value,
        width: Math.round((value / max) * 100),
      })),
      next,
    };
  },
  {
    args: { region: t.str().describe(`one of ${REGIONS.join(", ")}`) },
    summary: "Sales of a region, by month",
    mcp: {
      name: "sales_report",
      ui: { template: SALES_TEMPLATE, prefersBorder: true, preferredSize: { height: 260 } },
    },
  },
);

let count = 0;
const COUNT_SCHEMA = {
  type: "object" as const,
  properties: { count: { type: "integer" as const } },
  required: ["count"],
};

app.mcp.tool(() => ({ count }), {
  name: "counter",
  description: "Show the counter",
  outputSchema: COUNT_SCHEMA,
  ui: { bundle: new URL("./mcp-app/counter.html", import.meta.url), prefersBorder: false },
});

app.mcp.tool(
  ({ by }) => {
    count += by;
    return { count };
  },
  {
    name: "increment",
    description: "Add to the counter (the counter's UI calls it)",
    args: { by: t.int().min(1).max(100).default(1) },
    outputSchema: COUNT_SCHEMA,
    visibility: ["app"],
  },
);

if (import.meta.main) {
  const server = await app.start();
  console.log(`listening on ${server.url} (MCP at ${server.url}/mcp)`);
}

export default app;
