/**
 * Secure response headers and cross-site request protection (docs/security.md).
 *
 * `secureHeaders: true` sends HSTS (over TLS), `nosniff`, frame-ancestors, `Referrer-Policy`,
 * COOP/CORP, `Permissions-Policy` and a Content-Security-Policy whose `script-src` carries a fresh
 * nonce per response: the page's inline script uses it (`request.cspNonce`), and a script injected
 * without it is blocked by the browser. Cross-site request protection is on by default: a form or
 * `fetch` from another site posting here gets 403; this page's own form works; curl works.
 *
 *   bun examples/secure-headers.ts     # then open the printed URL
 */
import { html, Webfw } from "../src/index.ts";

const app = new Webfw(import.meta.path, { secureHeaders: true, errors: "problem" });
const notes: string[] = [];
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

app.get("/", (request) => {
  const list = notes.map((note) => `<li>${escapeHtml(note)}</li>`).join("");
  return html(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Notes</title></head>
<body>
<h1>Notes</h1>
<ul id="notes">${list}</ul>
<form method="post" action="/notes"><input name="text" required><button>Add</button></form>
<p id="status">inline scripts blocked</p>
<script nonce="${request.cspNonce}">document.getElementById("status").textContent = "inline script ran";</script>
</body></html>`);
});

app.post("/notes", (request) => {
  const text = request.formData.text ?? "";
  if (text !== "") notes.push(text.slice(0, 200));
  return new Response(null, { status: 303, headers: { location: "/" } });
});

app.get("/notes.json", () => notes);

if (import.meta.main) {
  const server = await app.start();
  console.log(`notes on ${server.url}`);
}

export default app;
