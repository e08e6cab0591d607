/**
 * The dashboard page's script (served as `dashboard.js`; docs/dashboard.md): plain DOM code, no
 * framework, no outside request. It reads the JSON API of src/dashboard/api.ts, follows the live
 * stream (`api/events`, read with fetch so that an Authorization header can go with it), and
 * calls the app's MCP tools through the app's own `/mcp` endpoint (JSON-RPC over HTTP).
 */
export const DASHBOARD_JS = String.raw`"use strict";
(function () {
  var base = location.pathname.replace(/\/+$/, "");
  var app = location.origin;
  var $ = function (selector, root) { return (root || document).querySelector(selector); };
  var tokenInput = $("#token");
  tokenInput.value = localStorage.getItem("webfw.dashboard.token") || "";
  tokenInput.addEventListener("change", function () { localStorage.setItem("webfw.dashboard.token", tokenInput.value); start(); });
  function authHeaders(extra) {
    var headers = Object.assign({}, extra || {});
    if (tokenInput.value.trim() !== "") headers.authorization = tokenInput.value.trim();
    return headers;
  }
  function api(path) {
    return fetch(base + "/api/" + path, { headers: authHeaders() }).then(function (response) {
      if (!response.ok) throw new Error(path + ": " + response.status);
      return response.json();
    });
  }
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === "text") node.textContent = attrs[key];
      else if (key === "class") node.className = attrs[key];
      else node.setAttribute(key, attrs[key]);
    });
    (children || []).forEach(function (child) { if (child != null) node.append(child); });
    return node;
  }
  function setStatus(text) { $("#status").textContent = text; }

  // Views
  var current = "requests";
  document.querySelectorAll("nav button").forEach(function (button) {
    button.addEventListener("click", function () { show(button.dataset.view); });
  });
  function show(view) {
    current = view;
    document.querySelectorAll("nav button").forEach(function (b) { b.classList.toggle("active", b.dataset.view === view); });
    document.querySelectorAll(".view").forEach(function (v) { v.classList.toggle("active", v.id === "view-" + view); });
    if (view === "routes") loadRoutes();
    if (view === "charts") loadCharts();
    if (view === "mcp") loadMcp();
    if (view === "sockets") loadSockets();
  }

  // Requests: the list follows the live stream; a row opens the request's trace and logs.
  var rows = new Map();
  var selected = null;
  var info = null;
  function statusClass(status) { return "s" + String(status).charAt(0); }
  function addRequest(request, fresh) {
    var tbody = $("#requests tbody");
    var old = rows.get(request.id);
    var row = el("tr", { "data-id": request.id, class: fresh ? "fresh" : "" }, [
      el("td", { class: "mono", text: new Date(request.startedAt).toLocaleTimeString() }),
      el("td", { text: request.method }),
      el("td", { class: "mono", text: request.path }),
      el("td", { class: statusClass(request.status), text: String(request.status) }),
      el("td", { text: request.durationMs.toFixed(1) }),
      el("td", { class: "mono", text: request.id }),
    ]);
    row.addEventListener("click", function () { openRequest(request.id); });
    if (old) old.replaceWith(row); else tbody.prepend(row);
    rows.set(request.id, row);
    if (selected === request.id) row.classList.add("selected");
    while (tbody.children.length > 500) { var last = tbody.lastElementChild; rows.delete(last.dataset.id); last.remove(); }
  }
  function openRequest(id) {
    selected = id;
    rows.forEach(function (row, key) { row.classList.toggle("selected", key === id); });
    return api("requests/" + encodeURIComponent(id)).then(function (request) {
      // An answer for a request no longer selected (a quicker click since) is dropped.
      if (selected === id) renderDetail(request);
    }, function (error) {
      $("#detail").replaceChildren(el("p", { class: "muted", text: String(error.message) }));
    });
  }
  function renderDetail(request) {
    var detail = $("#detail");
    detail.dataset.trace = request.traceId || "";
    var head = el("h3", { class: "mono", text: request.method + " " + request.path + " → " + request.status + " in " + request.durationMs.toFixed(2) + " ms" });
    var meta = el("p", { class: "muted mono", text: "request id " + request.id + (request.traceId ? " · trace " + request.traceId : "") + " · route " + request.route });
    var spans = request.spans || [];
    var waterfall = el("div", { class: "waterfall" });
    if (spans.length === 0) {
      waterfall.append(el("p", { class: "muted", text: info && info.spans !== "on" ? "No spans: " + info.spans : "No spans recorded for this request." }));
    } else {
      var start = Math.min.apply(null, spans.map(function (s) { return s.start; }));
      var end = Math.max.apply(null, spans.map(function (s) { return s.start + s.durationMs; }));
      var total = Math.max(end - start, 0.001);
      var depth = {};
      spans.forEach(function (span) { depth[span.spanId] = span.parentId && depth[span.parentId] !== undefined ? depth[span.parentId] + 1 : 0; });
      spans.forEach(function (span) {
        var kind = span.thread !== "main" ? "worker" : /^mcp|tools\/call/.test(span.name) ? "mcp" : "";
        var bar = el("div", { class: "bar " + kind + (span.status === "error" ? " error" : ""), title: JSON.stringify(span.attributes, null, 1) });
        bar.style.left = ((span.start - start) / total) * 100 + "%";
        bar.style.width = Math.max((span.durationMs / total) * 100, 0.3) + "%";
        var name = el("div", { class: "name mono", text: "\u00a0".repeat(depth[span.spanId] * 3) + span.name + " · " + span.thread, title: span.name });
        waterfall.append(el("div", { class: "span", "data-span": span.spanId }, [name, el("div", { class: "track" }, [bar, el("span", { class: "ms", text: span.durationMs.toFixed(2) + " ms" })])]));
      });
    }
    var logs = el("div", { class: "logs" });
    (request.logs || []).forEach(function (entry) { logs.append(el("div", { class: entry.level, text: entry.line })); });
    if ((request.logs || []).length === 0) logs.append(el("div", { text: "(no log lines)" }));
    if (request.droppedLogs > 0) logs.append(el("div", { text: "… " + request.droppedLogs + " more lines not kept" }));
    detail.replaceChildren(head, meta, el("h4", { text: "Trace" }), waterfall, el("h4", { text: "Logs" }), logs);
  }

  // The live stream, read with fetch (EventSource cannot send an Authorization header).
  var streamAbort = null;
  var refreshTimer = null;
  function follow() {
    if (streamAbort) streamAbort.abort();
    streamAbort = new AbortController();
    var signal = streamAbort.signal;
    fetch(base + "/api/events", { headers: authHeaders(), signal: signal }).then(function (response) {
      if (!response.ok || !response.body) throw new Error("live stream: " + response.status);
      setStatus("live · pid " + (info ? info.pid : "?"));
      var reader = response.body.getReader();
      var decoder = new TextDecoder();
      var buffer = "";
      function pump() {
        return reader.read().then(function (step) {
          if (step.done) throw new Error("live stream ended");
          buffer += decoder.decode(step.value, { stream: true });
          var cut;
          while ((cut = buffer.indexOf("\n\n")) >= 0) { handleEvent(buffer.slice(0, cut)); buffer = buffer.slice(cut + 2); }
          return pump();
        });
      }
      return pump();
    }).catch(function (error) {
      if (signal.aborted) return;
      setStatus("disconnected (" + error.message + "), retrying…");
      // The list is reloaded too: events sent while disconnected (a --dev restart) are not lost.
      setTimeout(start, 1000);
    });
  }
  function handleEvent(block) {
    var type = "message"; var data = "";
    block.split("\n").forEach(function (line) {
      if (line.indexOf("event: ") === 0) type = line.slice(7);
      else if (line.indexOf("data: ") === 0) data += line.slice(6);
    });
    if (data === "") return;
    var value = JSON.parse(data);
    if (type === "request") {
      addRequest(value, true);
      if (selected === value.id) openRequest(value.id);
    } else if (type === "span" && selected && $("#detail").dataset.trace === value.traceId) {
      clearTimeout(refreshTimer);
      refreshTimer = setTimeout(function () { openRequest(selected); }, 150);
    }
  }

  // Routes: what runs around each, in order, as the planner built it.
  function failed(error) { setStatus(String(error.message || error)); }
  function loadRoutes() {
    api("routes").then(function (routes) {
      var tbody = $("#routes tbody");
      tbody.replaceChildren();
      routes.forEach(function (route) {
        var chain = el("td", { class: "chain" });
        route.before.forEach(function (name) { chain.append(el("span", { text: name })); });
        if (route.auth) chain.append(el("span", { class: "auth", text: "auth " + route.auth + (route.authRequired ? " (required)" : "") }));
        chain.append(el("span", { class: "handler", text: route.kind === "built-in" ? "built-in (its feature's own checks)" : route.handler }));
        route.after.forEach(function (name) { chain.append(el("span", { text: name })); });
        tbody.append(el("tr", {}, [
          el("td", { text: route.method }), el("td", { class: "mono", text: route.pattern }), chain,
          el("td", { text: route.kind === "built-in" ? "its own" : route.auth ? (route.authRequired ? "required" : "optional") : "none" }),
          el("td", { text: route.rateLimit || "" }), el("td", { text: route.offload ? "Worker" : "" }),
          el("td", { text: route.cache || "" }), el("td", { text: route.timeoutMs ? route.timeoutMs + " ms" : "" }),
          el("td", { class: "mono", text: route.source || "" }),
        ]));
      });
    }).catch(failed);
  }

  // Charts: requests, latency percentiles and errors per route, one point a second.
  function drawLine(canvas, series, colors, label) {
    var ratio = window.devicePixelRatio || 1;
    var width = canvas.clientWidth || 360; var height = 70;
    canvas.width = width * ratio; canvas.height = height * ratio;
    var g = canvas.getContext("2d");
    g.scale(ratio, ratio);
    g.clearRect(0, 0, width, height);
    var max = 0;
    series.forEach(function (values) { values.forEach(function (v) { if (v > max) max = v; }); });
    var shown = max;
    max = max || 1;
    g.strokeStyle = "#e3e5ea"; g.beginPath(); g.moveTo(0, height - 0.5); g.lineTo(width, height - 0.5); g.stroke();
    series.forEach(function (values, index) {
      g.strokeStyle = colors[index]; g.lineWidth = 1.5; g.beginPath();
      values.forEach(function (v, i) {
        var x = (i / Math.max(values.length - 1, 1)) * width; var y = height - 4 - (v / max) * (height - 16);
        if (i === 0) g.moveTo(x, y); else g.lineTo(x, y);
      });
      g.stroke();
    });
    g.fillStyle = "#6b7280"; g.font = "11px system-ui"; g.fillText(label + " (max " + (Math.round(shown * 100) / 100) + ")", 4, 11);
  }
  function loadCharts() {
    api("stats?seconds=120").then(function (stats) {
      var box = $("#charts");
      var names = Object.keys(stats).sort();
      if (names.length === 0) { box.replaceChildren(el("p", { class: "muted", text: "No requests yet." })); return; }
      var cards = el("div", { class: "cards" });
      names.forEach(function (name) {
        var points = stats[name];
        var total = points.reduce(function (sum, p) { return sum + p.count; }, 0);
        var errors = points.reduce(function (sum, p) { return sum + p.errors; }, 0);
        var rate = el("canvas"); var latency = el("canvas"); var failures = el("canvas");
        cards.append(el("div", { class: "card", "data-route": name }, [
          el("h4", { text: name }),
          el("div", { class: "legend", text: total + (total === 1 ? " request, " : " requests, ") + errors + (errors === 1 ? " error" : " errors") + " in 2 min" }),
          rate, latency, failures,
          el("div", { class: "legend", text: "blue: requests/s · latency: p50 green, p95 orange, p99 red · errors/s" }),
        ]));
        requestAnimationFrame(function () {
          drawLine(rate, [points.map(function (p) { return p.count; })], ["#2f5bd3"], "requests/s");
          drawLine(latency, [points.map(function (p) { return p.p50; }), points.map(function (p) { return p.p95; }), points.map(function (p) { return p.p99; })], ["#1e8449", "#e67e22", "#c0392b"], "latency ms");
          drawLine(failures, [points.map(function (p) { return p.errors; })], ["#c0392b"], "errors/s");
        });
      });
      box.replaceChildren(cards);
    }).catch(failed);
  }

  // MCP: the app's tools, resources and prompts, through its own endpoint.
  var mcpSession = null;
  var rpcId = 0;
  function rpc(method, params, notification) {
    var headers = authHeaders({ "content-type": "application/json", accept: "application/json, text/event-stream" });
    if (mcpSession) headers["mcp-session-id"] = mcpSession;
    var message = { jsonrpc: "2.0", method: method };
    if (params) message.params = params;
    if (!notification) message.id = ++rpcId;
    return fetch(app + info.mcpPath, { method: "POST", headers: headers, body: JSON.stringify(message) }).then(function (response) {
      // The session ended (a --dev restart): a new one, then the call once more.
      if (response.status === 404 && mcpSession && method !== "initialize") {
        return mcpConnect().then(function () { return rpc(method, params, notification); });
      }
      var session = response.headers.get("mcp-session-id");
      if (session) mcpSession = session;
      if (notification) return null;
      return response.text().then(function (text) {
        var body = text;
        if ((response.headers.get("content-type") || "").indexOf("text/event-stream") >= 0) {
          var lines = text.split("\n").filter(function (line) { return line.indexOf("data:") === 0; });
          body = lines.map(function (line) { return line.slice(5).trim(); }).filter(function (line) { return line.indexOf('"id"') >= 0; }).pop() || "{}";
        }
        var parsed = body ? JSON.parse(body) : {};
        if (!response.ok && !parsed.error) throw new Error("MCP " + method + ": HTTP " + response.status + " " + text.slice(0, 200));
        if (parsed.error) throw new Error("MCP " + method + ": " + parsed.error.message);
        return parsed.result;
      });
    });
  }
  function mcpConnect() {
    mcpSession = null;
    return rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "webfw-dashboard", version: "1" } })
      .then(function (result) { return rpc("notifications/initialized", null, true).then(function () { return result; }); });
  }
  function fieldsFor(schema) {
    var properties = (schema && schema.properties) || {};
    var required = (schema && schema.required) || [];
    return Object.keys(properties).map(function (name) {
      var prop = properties[name] || {};
      var type = Array.isArray(prop.type) ? prop.type[0] : prop.type;
      var input;
      if (type === "boolean") input = el("input", { type: "checkbox", name: name });
      else if (type === "object" || type === "array") input = el("textarea", { name: name, rows: "2", placeholder: "JSON" });
      else if (prop.enum) { input = el("select", { name: name }); prop.enum.forEach(function (v) { input.append(el("option", { text: String(v) })); }); }
      else input = el("input", { name: name, type: type === "number" || type === "integer" ? "number" : "text", step: type === "number" ? "any" : "1", placeholder: prop.description || type || "" });
      input.dataset.type = type || "string";
      return el("label", {}, [name + (required.indexOf(name) >= 0 ? " *" : "") + " ", input]);
    });
  }
  function readFields(form) {
    var values = {};
    form.querySelectorAll("[name]").forEach(function (input) {
      var type = input.dataset.type;
      if (type === "boolean") { values[input.name] = input.checked; return; }
      if (input.value === "") return;
      if (type === "number" || type === "integer") values[input.name] = Number(input.value);
      else if (type === "object" || type === "array") values[input.name] = JSON.parse(input.value);
      else values[input.name] = input.value;
    });
    return values;
  }
  function callForm(title, description, schema, run) {
    var result = el("pre", { class: "result", hidden: "" });
    var form = el("form", {}, fieldsFor(schema).concat([el("button", { type: "submit", text: "Call" })]));
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      result.hidden = false; result.textContent = "…";
      Promise.resolve().then(function () { return run(readFields(form)); }).then(function (value) {
        result.textContent = JSON.stringify(value, null, 2);
      }, function (error) { result.textContent = String(error.message || error); });
    });
    return el("div", { class: "tool", "data-name": title }, [el("h4", { text: title }), description ? el("div", { class: "muted", text: description }) : null, form, result]);
  }
  function loadMcp() {
    var box = $("#mcp");
    if (!info || !info.mcpPath) { box.replaceChildren(el("p", { class: "muted", text: "This app serves no MCP endpoint." })); return; }
    mcpConnect().then(function (init) {
      var caps = (init && init.capabilities) || {};
      var lists = [caps.tools ? rpc("tools/list", {}) : null, caps.resources ? rpc("resources/list", {}) : null, caps.prompts ? rpc("prompts/list", {}) : null];
      return Promise.all(lists.map(function (p) { return p ? p.catch(function () { return null; }) : null; }));
    }).then(function (lists) {
      var none = function (items) { return items.length === 0 ? el("p", { class: "muted", text: "(none)" }) : null; };
      var tools = (lists[0] && lists[0].tools) || [];
      var resources = (lists[1] && lists[1].resources) || [];
      var prompts = (lists[2] && lists[2].prompts) || [];
      var parts = [el("h3", { text: "Tools" }), none(tools)];
      tools.forEach(function (tool) {
        parts.push(callForm(tool.name, tool.description, tool.inputSchema, function (args) { return rpc("tools/call", { name: tool.name, arguments: args }); }));
      });
      parts.push(el("h3", { text: "Resources" }), none(resources));
      resources.forEach(function (resource) {
        parts.push(callForm(resource.uri, resource.description || resource.name, null, function () { return rpc("resources/read", { uri: resource.uri }); }));
      });
      parts.push(el("h3", { text: "Prompts" }), none(prompts));
      prompts.forEach(function (prompt) {
        var schema = { properties: {}, required: [] };
        (prompt.arguments || []).forEach(function (arg) { schema.properties[arg.name] = { type: "string", description: arg.description }; if (arg.required) schema.required.push(arg.name); });
        parts.push(callForm(prompt.name, prompt.description, schema, function (args) { return rpc("prompts/get", { name: prompt.name, arguments: args }); }));
      });
      box.replaceChildren.apply(box, parts.filter(function (part) { return part !== null; }));
    }).catch(function (error) { box.replaceChildren(el("p", { class: "s5", text: String(error.message || error) })); });
  }

  // WebSockets: open connections and topics with their subscriber counts.
  function loadSockets() {
    api("sockets").then(function (sockets) {
      $("#topics tbody").replaceChildren.apply($("#topics tbody"), sockets.topics.map(function (topic) {
        return el("tr", { "data-topic": topic.topic }, [el("td", { class: "mono", text: topic.topic }), el("td", { text: String(topic.subscribers) }), el("td", { text: String(topic.sockets) })]);
      }));
      $("#connections tbody").replaceChildren.apply($("#connections tbody"), sockets.connections.map(function (c) {
        return el("tr", {}, [el("td", { class: "mono", text: c.id }), el("td", { class: "mono", text: c.path }), el("td", { class: "mono", text: [c.topic].concat(c.subscriptions).join(", ") })]);
      }));
    }).catch(failed);
  }

  // Composer: sends a request to the app; its request id is filled back into the list.
  $("#composer").addEventListener("submit", function (event) {
    event.preventDefault();
    var form = event.target;
    var headers = authHeaders();
    form.headers.value.split("\n").forEach(function (line) {
      var colon = line.indexOf(":");
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    });
    var id = headers["x-request-id"] || "dash-" + Math.random().toString(36).slice(2, 10);
    headers["x-request-id"] = id;
    var method = form.method.value;
    var init = { method: method, headers: headers };
    if (method !== "GET" && form.body.value !== "") init.body = form.body.value;
    var out = $("#composed");
    out.replaceChildren(el("p", { class: "muted", text: "sending…" }));
    fetch(app + form.path.value, init).then(function (response) {
      return response.text().then(function (text) {
        var answered = response.headers.get("x-request-id") || id;
        var link = el("a", { href: "#", class: "mono", "data-request-id": answered, text: answered });
        link.addEventListener("click", function (e) { e.preventDefault(); show("requests"); openRequest(answered); });
        var headerText = "";
        response.headers.forEach(function (value, name) { headerText += name + ": " + value + "\n"; });
        out.replaceChildren(
          el("h3", { class: statusClass(response.status), text: response.status + " " + response.statusText }),
          el("p", {}, ["request id ", link, " (open it in the list)"]),
          el("pre", { class: "result", text: headerText }), el("pre", { class: "result", text: text.slice(0, 20000) }));
      });
    }, function (error) { out.replaceChildren(el("p", { class: "s5", text: String(error.message) })); });
  });

  // Views that show counters refresh every two seconds while they are open.
  setInterval(function () {
    if (document.hidden) return;
    if (current === "charts") loadCharts();
    if (current === "sockets") loadSockets();
  }, 2000);

  function start() {
    api("info").then(function (value) {
      info = value;
      return api("requests?limit=200");
    }).then(function (list) {
      $("#requests tbody").replaceChildren(); rows.clear();
      list.slice().reverse().forEach(function (request) { addRequest(request, false); });
      follow();
    }).catch(function (error) {
      var refused = / 40[13]$/.test(String(error.message));
      setStatus(String(error.message) + (refused && !tokenInput.value ? " (set Authorization?)" : refused ? "" : ", retrying…"));
      // A server restarting (--dev) comes back; a refused credential waits for a new one.
      if (!refused) setTimeout(start, 2000);
    });
  }
  window.webfwDashboard = { openRequest: openRequest, show: show };
  start();
})();
`;
