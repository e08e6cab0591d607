/**
 * The counter's View: the ext-apps `App` client, bundled with the page into one
 * HTML file by `ui: { bundle }` (Bun's HTML bundler; no CDN). It shows the
 * counter tool's result and calls the app-only `increment` tool through the host.
 */
import { App } from "@modelcontextprotocol/ext-apps";

interface CountResult {
  structuredContent?: unknown;
}

const output = document.getElementById("count") as HTMLOutputElement;
const button = document.getElementById("increment") as HTMLButtonElement;
const app = new App({ name: "counter view", version: "1.0.0" });

function show(result: CountResult): void {
  const count = (result.structuredContent as { count?: number } | undefined)?.count;
  output.textContent = count === undefined ? "?" : String(count);
}

app.ontoolresult = show;
button.addEventListener("click", async () => {
  show(await app.callServerTool({ name: "increment", arguments: { by: 1 } }));
});
await app.connect();
