/**
 * The dashboard page: plain HTML, one stylesheet and one hand-written script (src/dashboard/
 * page-script.ts), served by the app itself, so it works offline and inside a compiled binary
 * (no file to find at run time, no CDN). Script and styles are separate files so that a strict
 * Content-Security-Policy (`script-src 'self'`, src/secure-headers/) allows them.
 */
export { DASHBOARD_JS } from "./page-script.ts";

/** The page; `base` is the dashboard's path (its script and styles are under it). */
export const dashboardHtml = (base: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>webfw dashboard</title>
<link rel="stylesheet" href="${base}/dashboard.css">
</head>
<body>
<header>
  <strong>webfw</strong> <span class="muted">development dashboard</span>
  <nav>
    <button data-view="requests" class="active">Requests</button>
    <button data-view="routes">Routes</button>
    <button data-view="charts">Charts</button>
    <button data-view="mcp">MCP</button>
    <button data-view="sockets">WebSockets</button>
    <button data-view="composer">Composer</button>
  </nav>
  <label class="token">Authorization <input id="token" placeholder="Bearer …" autocomplete="off"></label>
  <span id="status" class="muted">connecting…</span>
</header>
<main>
  <section id="view-requests" class="view active">
    <div class="split">
      <div class="list">
        <table id="requests"><thead><tr><th>time</th><th>method</th><th>path</th><th>status</th><th>ms</th><th>request id</th></tr></thead><tbody></tbody></table>
      </div>
      <div id="detail" class="detail"><p class="muted">Pick a request to see its trace and its log lines.</p></div>
    </div>
  </section>
  <section id="view-routes" class="view"><table id="routes"><thead><tr><th>method</th><th>pattern</th><th>what runs, in order</th><th>auth</th><th>limits</th><th>offload</th><th>cache</th><th>timeout</th><th>source</th></tr></thead><tbody></tbody></table></section>
  <section id="view-charts" class="view"><p class="muted">Each second of the last two minutes, per route: requests, latency (p50, p95, p99 in ms) and errors (5xx).</p><div id="charts"></div></section>
  <section id="view-mcp" class="view"><div id="mcp"><p class="muted">Loading the app's MCP tools…</p></div></section>
  <section id="view-sockets" class="view"><h3>Topics</h3><table id="topics"><thead><tr><th>topic</th><th>subscribers</th><th>WebSocket connections</th></tr></thead><tbody></tbody></table><h3>Connections</h3><table id="connections"><thead><tr><th>id</th><th>path</th><th>topics</th></tr></thead><tbody></tbody></table></section>
  <section id="view-composer" class="view">
    <form id="composer">
      <div class="row"><select name="method"><option>GET</option><option>POST</option><option>PUT</option><option>PATCH</option><option>DELETE</option></select>
      <input name="path" value="/" size="50" aria-label="path"><button type="submit">Send</button></div>
      <label>Headers (one <code>name: value</code> a line)<textarea name="headers" rows="3">content-type: application/json</textarea></label>
      <label>Body<textarea name="body" rows="5"></textarea></label>
    </form>
    <div id="composed"></div>
  </section>
</main>
<script src="${base}/dashboard.js"></script>
</body>
</html>
`;

export const DASHBOARD_CSS = `
:root { --bg: #fbfbfc; --fg: #1d2330; --muted: #6b7280; --line: #e3e5ea; --accent: #2f5bd3; --err: #c0392b; --ok: #1e8449; --warn: #b9770e; }
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; gap: 16px; align-items: center; padding: 8px 16px; border-bottom: 1px solid var(--line); background: #fff; position: sticky; top: 0; }
nav button { border: 0; background: none; padding: 6px 10px; cursor: pointer; border-radius: 4px; font: inherit; }
nav button.active { background: var(--accent); color: #fff; }
.token input { width: 200px; }
#status { margin-left: auto; }
main { padding: 12px 16px; }
.view { display: none; } .view.active { display: block; }
.muted { color: var(--muted); }
table { border-collapse: collapse; width: 100%; background: #fff; }
td.mono { white-space: nowrap; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); }
code, td.mono, .mono { font-family: ui-monospace, monospace; font-size: 12px; }
.split { display: grid; grid-template-columns: minmax(420px, 1fr) 1.2fr; gap: 12px; }
.list { max-height: calc(100vh - 90px); overflow: auto; }
#requests tbody tr { cursor: pointer; } #requests tbody tr:hover { background: #f1f4fb; }
#requests tr.selected { background: #e3eafc; } #requests tr.fresh { animation: fresh 1.2s ease-out; }
@keyframes fresh { from { background: #fff5c2; } to { background: transparent; } }
.s2 { color: var(--ok); } .s3 { color: var(--accent); } .s4 { color: var(--warn); } .s5 { color: var(--err); font-weight: 600; }
.detail { background: #fff; border: 1px solid var(--line); padding: 10px 12px; max-height: calc(100vh - 90px); overflow: auto; }
.waterfall { margin: 8px 0 12px; }
.span { display: grid; grid-template-columns: 300px 1fr; align-items: center; gap: 8px; padding: 2px 0; }
.span .name { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.span .track { position: relative; height: 14px; background: #f3f4f7; }
.span .bar { position: absolute; height: 14px; min-width: 2px; background: var(--accent); border-radius: 2px; }
.span .bar.worker { background: #8e44ad; } .span .bar.mcp { background: #16a085; } .span .bar.error { background: var(--err); }
.span .ms { position: absolute; right: 4px; top: -1px; font-size: 11px; color: var(--muted); background: rgba(255,255,255,.85); padding: 0 3px; border-radius: 2px; }
.logs { background: #15181e; color: #dfe3ea; padding: 8px; font: 12px/1.4 ui-monospace, monospace; white-space: pre-wrap; word-break: break-all; }
.logs .ERROR { color: #ff8b7b; } .logs .WARNING { color: #ffd479; }
.chain span { display: inline-block; background: #eef1f7; border-radius: 3px; padding: 0 5px; margin: 1px 2px; }
.chain span.handler { background: #dfe8ff; font-weight: 600; } .chain span.auth { background: #fde9d9; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(380px, 1fr)); gap: 12px; }
.card { background: #fff; border: 1px solid var(--line); padding: 8px 10px; }
.card h4 { margin: 0 0 6px; font-family: ui-monospace, monospace; }
canvas { width: 100%; height: 70px; display: block; margin-bottom: 4px; }
.legend { font-size: 11px; color: var(--muted); }
form label { display: block; margin-top: 8px; } textarea { width: 100%; font: 12px ui-monospace, monospace; }
.row { display: flex; gap: 6px; } input, select, textarea, button { font: inherit; padding: 3px 6px; }
button { cursor: pointer; }
.tool { background: #fff; border: 1px solid var(--line); padding: 8px 10px; margin-bottom: 10px; }
.tool h4 { margin: 0; font-family: ui-monospace, monospace; } .tool form { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; margin-top: 6px; }
.tool form label { margin: 0; } pre.result { background: #f6f7f9; padding: 6px; margin: 6px 0 0; white-space: pre-wrap; max-height: 200px; overflow: auto; }
`;
