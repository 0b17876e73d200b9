// The inspector page's side panes: the message log (every JSON-RPC
// message of the page's sessions, one line each, pretty-printed on
// demand, filtered by direction, method and session, searched, requests
// timed), the server's notifications with a log-level selector, and the
// history of the page's calls, each to run again or copy as an mcp command
// line or as JSON. Server data is only ever set as text.
"use strict";

const LOG_MAX = 2000; // lines kept in the log
const PREVIEW_MAX = 300; // characters of a message on its line
const PRETTY_MAX = 200000; // characters pretty-printed before "show all"
const NOTES_MAX = 1000;
const HISTORY_MAX = 100;
const PENDING_MAX = 1000; // requests waiting for their response, for timings

const logState = {
  session: 0, // the session of the latest connection
  sessions: new Set(),
  methods: new Set(),
  pending: new Map(), // "session dir id" -> {at, method}
  unseen: 0, // notifications not seen yet
};

// ---- the message log ----

// logLine adds a line of the page's own to the log: an event of the feed
// or a view's message ("view" in cls).
function logLine(cls, ...parts) {
  const kind = cls.split(" ").includes("view") ? "view" : "event";
  const li = el("li", {class: cls, "data-kind": kind}, ...parts);
  if (li.querySelector("pre")) {
    // one line, opened by a click or Enter like a message's
    li.tabIndex = 0;
    li.setAttribute("aria-expanded", "false");
    const toggle = () => li.setAttribute("aria-expanded", String(li.getAttribute("aria-expanded") !== "true"));
    li.addEventListener("click", () => { if (!window.getSelection().toString()) toggle(); });
    li.addEventListener("keydown", (ev) => { if (ev.key === "Enter" && ev.target === li) { ev.preventDefault(); toggle(); } });
  }
  addEntry(li, {kind, session: logState.session});
}

// addEntry appends li to the log, hidden when the filters exclude it,
// and keeps the log scrolled to its end if it was there.
function addEntry(li, entry) {
  li.entry = entry;
  const log = $("#log");
  const pane = $("#pane-log");
  const atEnd = pane.scrollTop + pane.clientHeight >= pane.scrollHeight - 40;
  li.hidden = !matches(entry, li);
  log.append(li);
  while (log.children.length > LOG_MAX) log.firstChild.remove();
  if (atEnd) pane.scrollTop = pane.scrollHeight;
}

// logMessage adds a JSON-RPC message of the feed: its direction, method
// (a response names its request's), id, the time its request took, and a
// one-line preview that opens on a click (or Enter) into the message
// pretty-printed.
function logMessage(e) {
  const d = e.data;
  const sess = e.session || 0;
  const hasId = d.id !== undefined && d.id !== null;
  let method = d.method || "";
  let took = null;
  if (hasId && d.method) {
    logState.pending.set(sess + " " + e.dir + " " + JSON.stringify(d.id), {at: e.at, method: d.method});
    if (logState.pending.size > PENDING_MAX) logState.pending.delete(logState.pending.keys().next().value);
  } else if (hasId) {
    const key = sess + " " + (e.dir === "in" ? "out" : "in") + " " + JSON.stringify(d.id);
    const req = logState.pending.get(key);
    if (req) {
      logState.pending.delete(key);
      method = req.method;
      took = e.at - req.at;
    }
  }
  noteFilters(sess, method);
  const json = JSON.stringify(d);
  const what = d.method || (d.error ? "error" : "result");
  const head = el("span", {class: "dir", text: e.time + " " + (e.dir === "out" ? "→ " : "← ") + what + (hasId ? " #" + d.id : "")});
  const li = el("li", {class: "msg " + e.dir + (d.error ? " failed" : ""), "data-kind": e.dir, tabindex: "0", "aria-expanded": "false"},
    head,
    !d.method && method ? el("span", {class: "for", text: " " + method}) : null,
    took !== null ? el("span", {class: "took", text: " " + took + " ms"}) : null,
    sess ? el("span", {class: "sess", text: " s" + sess}) : null,
    el("button", {type: "button", class: "copy", title: "copy the message as JSON", text: "copy", onclick: (ev) => { ev.stopPropagation(); copyText(JSON.stringify(d, null, 2), ev.target); }}),
    el("pre", {class: "preview", text: json.length > PREVIEW_MAX ? json.slice(0, PREVIEW_MAX) + "… (" + json.length + " characters)" : json}));
  li.addEventListener("click", (ev) => { if (!ev.target.closest("button") && !window.getSelection().toString()) toggleMessage(li); });
  li.addEventListener("keydown", (ev) => { if (ev.key === "Enter" && ev.target === li) { ev.preventDefault(); toggleMessage(li); } });
  addEntry(li, {kind: e.dir, method, session: sess, json, data: d});
  if (e.dir === "in" && d.method && !hasId) addNote(e);
}

// toggleMessage opens a message's line into the message pretty-printed,
// or closes it back to its preview.
function toggleMessage(li) {
  const open = li.getAttribute("aria-expanded") !== "true";
  li.setAttribute("aria-expanded", String(open));
  li.querySelector(".full")?.remove();
  li.querySelector(".preview").hidden = open;
  if (!open) return;
  let text = pretty(li.entry.data);
  const full = el("div", {class: "full"});
  if (text.length > PRETTY_MAX) {
    const all = text;
    text = text.slice(0, PRETTY_MAX);
    full.append(el("button", {type: "button", class: "show-all", text: "show all " + all.length + " characters",
      onclick: (ev) => { ev.stopPropagation(); full.querySelector("pre").textContent = all; ev.target.remove(); }}));
  }
  full.prepend(el("pre", {class: "pretty", text}));
  li.append(full);
}

// noteFilters offers a new session or method in the filters.
function noteFilters(sess, method) {
  if (sess && !logState.sessions.has(sess)) {
    logState.sessions.add(sess);
    $("#log-session").append(el("option", {value: String(sess), text: "session " + sess}));
  }
  if (method && !logState.methods.has(method)) {
    logState.methods.add(method);
    $("#log-methods").append(el("option", {value: method}));
  }
}

// matches tells whether a log entry passes the filters and the search.
function matches(entry, li) {
  const dir = $("#log-dir").value;
  const method = $("#log-method").value.trim().toLowerCase();
  const sess = $("#log-session").value;
  const q = $("#log-search").value.trim().toLowerCase();
  if (dir && entry.kind !== dir) return false;
  if (sess && String(entry.session) !== sess) return false;
  if (method && !(entry.method !== undefined ? entry.method : li.textContent).toLowerCase().includes(method)) return false;
  if (q) {
    if (entry.lower === undefined) entry.lower = (entry.json || li.textContent).toLowerCase();
    if (!entry.lower.includes(q)) return false;
  }
  return true;
}

function applyFilters() {
  for (const li of $("#log").children) li.hidden = !matches(li.entry || {}, li);
}

// ---- notifications ----

// addNote shows a notification from the server in the Notifications pane.
function addNote(e) {
  const d = e.data;
  const p = d.params || {};
  let cls = "note", text;
  switch (d.method) {
  case "notifications/message":
    cls += " level-" + p.level;
    text = "[" + p.level + "]" + (p.logger ? " " + p.logger : "") + ": " + (typeof p.data === "string" ? p.data : JSON.stringify(p.data));
    break;
  case "notifications/progress":
    text = "progress " + p.progress + (p.total ? "/" + p.total : "") + (p.message ? " " + p.message : "");
    break;
  case "notifications/resources/updated":
    text = "resource updated: " + p.uri;
    break;
  case "notifications/cancelled":
    text = "cancelled #" + p.requestId + (p.reason ? ": " + p.reason : "");
    break;
  default:
    text = d.method.endsWith("/list_changed") ? d.method.slice("notifications/".length, -"/list_changed".length) + " list changed"
      : d.method + " " + JSON.stringify(p);
  }
  const notes = $("#notes");
  notes.append(el("li", {class: cls}, el("span", {class: "dir", text: e.time + " "}), text));
  while (notes.children.length > NOTES_MAX) notes.firstChild.remove();
  const pane = $("#pane-notes");
  if (pane.hidden) {
    logState.unseen++;
    $("#notes-count").textContent = String(logState.unseen);
  } else {
    pane.scrollTop = pane.scrollHeight;
  }
}

// showLevel shows the state's log level, and whether the server logs.
function showLevel(s) {
  const sel = $("#log-level");
  const logs = !!(s.connected && s.capabilities && s.capabilities.logging);
  sel.disabled = !logs;
  sel.title = logs ? "logging/setLevel" : "the server declares no logging capability";
  sel.value = s.logLevel || "";
}

async function setLevel() {
  const level = $("#log-level").value;
  if (!level) return;
  $("#level-status").textContent = "…";
  try {
    await api("set-level", {level});
    $("#level-status").textContent = "set to " + level;
  } catch (err) {
    $("#level-status").textContent = err.message;
  }
}

// ---- tabs ----

function showTab(tab) {
  for (const t of document.querySelectorAll('[role="tab"]')) {
    const on = t === tab;
    t.setAttribute("aria-selected", String(on));
    t.tabIndex = on ? 0 : -1;
    $("#" + t.getAttribute("aria-controls")).hidden = !on;
  }
  if (tab.id === "tab-notes") {
    logState.unseen = 0;
    $("#notes-count").textContent = "";
  }
}

// ---- history ----

// The page's calls, newest first: {action: call|read|get, name, uri,
// args, task, target, time, outcome}.
const history = [];

// recordCall adds a call to the history, and returns a function that
// records how it ended (an error, or null).
function recordCall(h) {
  h.target = currentTarget();
  h.time = new Date().toTimeString().slice(0, 8);
  h.outcome = "…";
  const started = performance.now();
  history.unshift(h);
  history.length = Math.min(history.length, HISTORY_MAX);
  showHistory();
  return (err) => {
    h.outcome = (err ? "error: " + err.message : "ok") + " · " + Math.round(performance.now() - started) + " ms";
    showHistory();
  };
}

function showHistory() {
  $("#history").replaceChildren(...history.map((h, i) => el("li", {class: "call", "data-index": i},
    el("div", {class: "call-head"}, el("span", {class: "dir", text: h.time + " "}), el("strong", {text: callLabel(h)}), " ", el("span", {class: "outcome", text: h.outcome})),
    el("pre", {class: "preview", text: JSON.stringify(h.action === "read" ? {uri: h.uri} : h.args || {})}),
    el("div", {class: "call-actions"},
      el("button", {type: "button", class: "rerun", text: "Run again", onclick: () => rerun(h)}), " ",
      el("button", {type: "button", class: "copy-mcp", text: "Copy mcp", title: "copy as an mcp command line", onclick: (ev) => copyText(mcpCommand(h), ev.target)}), " ",
      el("button", {type: "button", class: "copy-json", text: "Copy JSON", title: "copy as a JSON-RPC request", onclick: (ev) => copyText(pretty(jsonRequest(h)), ev.target)})))));
}

function callLabel(h) {
  return {call: "call ", read: "read ", get: "get "}[h.action] + (h.action === "read" ? h.uri : h.name) + (h.task ? " (task)" : "");
}

// rerun runs a call of the history again, with the same arguments, on
// the server connected now.
function rerun(h) {
  switch (h.action) {
  case "call": {
    const tool = (listed.tools || []).find((t) => t.name === h.name);
    if (!tool) { showError(new Error("the server lists no tool " + h.name + " now")); return; }
    selectItem("tools", tool);
    callTool(tool, h.args, h.task);
    return;
  }
  case "read":
    run("read", {uri: h.uri}, renderRead, null, {action: "read", uri: h.uri});
    return;
  case "get": {
    const prompt = (listed.prompts || []).find((p) => p.name === h.name);
    if (prompt) selectItem("prompts", prompt);
    run("get", {name: h.name, arguments: h.args}, renderPrompt, null, {action: "get", name: h.name, args: h.args});
  }
  }
}

// shellWord quotes s for a POSIX shell where it needs it.
function shellWord(s) {
  return /^[A-Za-z0-9_\/.:=@%+,-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";
}

// mcpCommand is the call as an mcp command line on the page's target.
function mcpCommand(h) {
  const words = ["mcp", h.action, shellWord(h.action === "read" ? h.uri : h.name)];
  if (h.action !== "read" && h.args && Object.keys(h.args).length) words.push("--args", shellWord(JSON.stringify(h.args)));
  if (h.task) words.push("--task");
  return words.join(" ") + " " + (h.target || "TARGET");
}

// jsonRequest is the call as the JSON-RPC request a client sends.
function jsonRequest(h) {
  const method = {call: "tools/call", read: "resources/read", get: "prompts/get"}[h.action];
  const params = h.action === "read" ? {uri: h.uri} : {name: h.name, arguments: h.args || {}};
  return {jsonrpc: "2.0", id: 1, method, params};
}

// copyText puts text on the clipboard and says so on the button.
async function copyText(text, button) {
  const label = button.textContent;
  button.dataset.copied = text; // what is copied, for a look (and the tests)
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = "copied";
  } catch (err) {
    button.textContent = "copy failed";
  }
  setTimeout(() => { button.textContent = label; }, 1500);
}

// ---- start ----

$("#clear-log").addEventListener("click", () => $("#log").replaceChildren());
$("#clear-notes").addEventListener("click", () => $("#notes").replaceChildren());
for (const id of ["#log-search", "#log-method"]) $(id).addEventListener("input", applyFilters);
for (const id of ["#log-dir", "#log-session"]) $(id).addEventListener("change", applyFilters);
$("#log-level").addEventListener("change", setLevel);
for (const t of document.querySelectorAll('[role="tab"]')) t.addEventListener("click", () => showTab(t));
