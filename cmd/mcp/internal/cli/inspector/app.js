// The mcp inspector's page. It talks only to the mcp process that served
// it: POST api/ACTION for actions, and the events feed for every JSON-RPC
// message, progress and the server's questions. Server data is only ever
// set as text, never parsed as HTML.
"use strict";

const $ = (sel) => document.querySelector(sel);

// el builds an element: el("div", {class: "x"}, child, "text", ...).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (v === true) e.setAttribute(k, "");
    else e.setAttribute(k, String(v));
  }
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

async function api(op, args) {
  const r = await fetch("api/" + op, {
    method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify(args || {}),
  });
  if (!r.ok) throw new Error(r.status + " " + (await r.text()));
  const body = await r.json();
  if (body.error !== undefined) {
    const err = new Error(body.error);
    if (body.code !== undefined) err.code = body.code; // a JSON-RPC error, passed on to views as it is
    throw err;
  }
  return body.result;
}

const pretty = (v) => JSON.stringify(v, null, 2);

// ---- the feed ----

function onEvent(e) {
  const d = e.data;
  switch (e.kind) {
  case "message":
    logMessage(e); // log.js
    if (e.dir === "in" && d.method && d.method.endsWith("/list_changed")) refresh();
    break;
  case "progress": {
    $("#progress").hidden = false;
    const bar = $("#progress-bar");
    if (d.total) { bar.max = d.total; bar.value = d.progress; } else { bar.removeAttribute("value"); }
    $("#progress-text").textContent = d.progress + (d.total ? "/" + d.total : "") + (d.message ? " " + d.message : "");
    break;
  }
  case "connecting":
    logState.session = d.session || logState.session;
    setStatus("connecting to " + d.target.join(" ") + "…");
    logLine("event", e.time + " connecting to " + d.target.join(" "));
    break;
  case "connected":
    logLine("event", e.time + " connected");
    closeView("another server was connected");
    showState(d);
    devConnected(); // dev.js
    $("#tasks").replaceChildren(); // tasks belong to a session
    refresh();
    loadRoots();
    break;
  case "disconnected":
    logLine("event error", e.time + " " + (d.error || "disconnected"));
    setStatus("disconnected: " + (d.error || ""));
    clearLists();
    break;
  case "elicit":
    if (!answered.has(d.id)) {
      showElicit(d.id, d.params);
      // the last answer did not fit the server's schema: asked again
      if (d.error) document.querySelector('.question[data-id="' + d.id + '"]').append(el("p", {class: "error", text: d.error}));
    }
    break;
  case "sample":
    if (!answered.has(d.id)) showSample(d.id, d.params);
    break;
  case "task":
    showTask(d.tool, d.task);
    break;
  case "app":
    viewOpened(e.time, d);
    break;
  case "dev":
    devBuild(d, e.time); // dev.js
    break;
  case "answered":
    answered.add(d.id);
    document.querySelectorAll('.question[data-id="' + d.id + '"]').forEach((q) => q.remove());
    break;
  }
}

const answered = new Set();

function openFeed() {
  const es = new EventSource("events");
  $("#log").replaceChildren();
  $("#questions").replaceChildren();
  es.onmessage = (m) => onEvent(JSON.parse(m.data));
  es.onopen = () => { api("state").then(showState).catch(showError); };
  es.onerror = () => { es.close(); setTimeout(openFeed, 1000); };
}

// ---- the server's lists ----

function setStatus(s) { $("#status").textContent = s; }

// clearLists empties what the page showed of a server it is no longer
// connected to, so that nothing of it can be called by mistake.
function clearLists() {
  generation++; // a refresh still under way shows nothing
  closeView("the server was disconnected");
  for (const kind of ["tools", "resources", "templates", "prompts", "tasks"]) $("#" + kind).replaceChildren();
  $("#detail").replaceChildren(el("p", {class: "hint", text: "Not connected: connect to a server above."}));
}

function showState(s) {
  state = s;
  showLevel(s); // log.js
  devBuild(s.dev); // dev.js
  if (!s.connected) {
    clearLists();
    setStatus(s.error ? "not connected: " + s.error : "not connected");
    if (!$("#target").value && s.target) $("#target").value = s.target;
    return;
  }
  stateless = !!s.stateless;
  serverTasks = !!s.tasks;
  const info = s.serverInfo || {};
  setStatus((info.title || info.name || "server") + " " + (info.version || "") + " · " + s.protocolVersion + (s.stateless ? " (stateless)" : ""));
  if (!$("#target").value) $("#target").value = s.target;
}

let generation = 0;
let state = {}; // the latest state of the session
const listed = {}; // the latest lists: tools, resources, templates, prompts

// currentTarget is the target of the session, as the page was told it.
function currentTarget() { return state.target || ""; }
let stateless = false; // the session is 2026-07-28's
let serverTasks = false; // the server runs tools/call as a task when asked

// refresh fetches the four lists, once for a burst of list_changed
// notifications; only the latest of overlapping refreshes shows its
// answer.
function refresh() {
  if (refreshQueued) return;
  refreshQueued = true;
  setTimeout(() => { refreshQueued = false; refreshNow(); }, 50);
}
let refreshQueued = false;

async function refreshNow() {
  const my = ++generation;
  const lists = [
    ["tools", (t) => t.name + (appOnly(t) ? " (app only)" : toolUI(t) && toolUI(t).resourceUri ? " (app)" : ""), showTool],
    ["resources", (r) => r.name + " (" + r.uri + ")", showResource],
    ["templates", (t) => t.name + " (" + t.uriTemplate + ")", showTemplate],
    ["prompts", (p) => p.name, showPrompt],
  ];
  for (const [kind, label, show] of lists) {
    const ul = $("#" + kind);
    const items = [];
    let got = [];
    try {
      got = await api(kind);
      for (const item of got) {
        const cls = kind.slice(0, -1) + (kind === "tools" && appOnly(item) ? " app-only" : "");
        const b = el("button", {type: "button", class: cls, "data-name": item.name, text: label(item), title: item.description || ""});
        b.addEventListener("click", () => pick(b, item, show));
        items.push(el("li", {}, b));
      }
    } catch (err) {
      items.push(el("li", {class: "error", text: err.message}));
    }
    if (my !== generation) return;
    listed[kind] = got;
    ul.replaceChildren(...items);
  }
  devListed(); // dev.js
}

// pick shows an item of the lists (its button b) in the detail pane.
function pick(b, item, show) {
  closeView("the user picked something else");
  document.querySelectorAll("nav button.selected").forEach((x) => x.classList.remove("selected"));
  b.classList.add("selected");
  devPicked(b.closest("ul").id, item); // dev.js
  $("#result").replaceChildren();
  $("#progress").hidden = true;
  show(item);
}

// selectItem picks the item of the list kind (tools, prompts) named as
// item is, as a click on it would.
function selectItem(kind, item) {
  const b = [...$("#" + kind).querySelectorAll("button")].find((x) => x.dataset.name === item.name);
  if (b) pick(b, item, kind === "tools" ? showTool : showPrompt);
}

// ---- forms from JSON Schema ----

// fieldFor returns a form field for one property of an object schema, and a
// function that reads its value (undefined when left empty).
function fieldFor(name, schema, required, value) {
  schema = schema || {};
  let types = schema.type === undefined ? [] : [].concat(schema.type);
  const choices = schema.enum || (schema.oneOf && schema.oneOf.every((o) => "const" in o) ? schema.oneOf.map((o) => o.const) : null);
  const itemOptions = schema.items && (schema.items.enum ? schema.items.enum.map((c) => ({const: c})) : (schema.items.anyOf || schema.items.oneOf || []));
  const itemChoices = itemOptions && itemOptions.map((o) => o.const);
  const label = el("label", {}, el("span", {class: "name", text: schema.title || name}), required ? el("span", {class: "required", text: " *"}) : null, " ");
  const hint = schema.description ? el("div", {class: "desc", text: schema.description}) : null;
  let input, read;
  if (value === undefined) value = schema.default;
  if (choices) {
    input = el("select", {name});
    if (!required) input.append(el("option", {value: "", text: ""}));
    choices.forEach((c, i) => {
      const title = schema.oneOf ? schema.oneOf[i].title : (schema.enumNames ? schema.enumNames[i] : null);
      input.append(el("option", {value: JSON.stringify(c), text: title || String(c), selected: value === c}));
    });
    read = () => (input.value === "" ? undefined : JSON.parse(input.value));
  } else if (types.includes("array") && itemChoices && itemChoices.length) {
    input = el("span", {class: "multi"});
    const boxes = itemChoices.map((c, i) => {
      const b = el("input", {type: "checkbox", name, value: c, checked: Array.isArray(value) && value.includes(c)});
      input.append(el("label", {}, b, " " + (itemOptions[i].title || c)));
      return b;
    });
    read = () => boxes.filter((b) => b.checked).map((b) => b.value);
  } else if (types.length === 1 && types[0] === "boolean") {
    input = el("input", {type: "checkbox", name, checked: value === true});
    read = () => input.checked;
  } else if (types.length === 1 && (types[0] === "number" || types[0] === "integer")) {
    input = el("input", {type: "number", name, step: types[0] === "integer" ? "1" : "any", value: value});
    read = () => (input.value === "" ? undefined : Number(input.value));
  } else if (types.length === 1 && types[0] === "string" && multiLine(schema, value)) {
    // code, a letter: a one-line field would drop the newlines
    input = el("textarea", {name, class: "multi-line", rows: Math.min(20, Math.max(4, String(value || "").split("\n").length + 1))});
    if (value !== undefined) input.value = String(value);
    read = () => (input.value === "" ? undefined : input.value);
  } else if (types.length === 1 && types[0] === "string") {
    input = el("input", {type: "text", name, value: value});
    read = () => (input.value === "" ? undefined : input.value);
  } else {
    // objects, arrays, unions: JSON
    input = el("textarea", {name, placeholder: "JSON"});
    if (value !== undefined) input.value = JSON.stringify(value);
    read = () => {
      if (input.value.trim() === "") return undefined;
      try { return JSON.parse(input.value); } catch (err) { throw new Error(name + ": " + err.message); }
    };
  }
  label.append(input);
  return {node: el("div", {class: "field"}, label, hint), read, name};
}

// multiLine: a string field whose value has several lines (a default
// such as three.js's code), or whose schema says it holds a document.
function multiLine(schema, value) {
  return (typeof value === "string" && value.includes("\n")) || typeof schema.contentMediaType === "string";
}

// objectForm builds the fields of an object schema.
function objectForm(schema) {
  schema = schema || {};
  const required = schema.required || [];
  const fields = Object.entries(schema.properties || {}).map(([n, s]) => fieldFor(n, s, required.includes(n)));
  return {
    nodes: fields.map((f) => f.node),
    read: () => {
      const out = {};
      for (const f of fields) {
        const v = f.read();
        if (v !== undefined) out[f.name] = v;
      }
      return out;
    },
  };
}

function detail(title, description, ...rest) {
  $("#detail").replaceChildren(el("h2", {text: title}), description ? el("div", {class: "desc", text: description}) : null, ...rest);
}

// run performs action, showing its result with render; record, if
// given, is the history's entry for it (log.js).
async function run(action, args, render, failed, record) {
  const out = $("#result");
  out.replaceChildren(el("p", {class: "hint", text: "…"}));
  const done = record ? recordCall(record) : () => {};
  try {
    const res = await api(action, args);
    done(null);
    out.replaceChildren(render(res));
  } catch (err) {
    done(err);
    out.replaceChildren(el("p", {class: "error", text: err.message}));
    if (failed) failed(err);
  }
}

function showTool(tool) {
  if (appOnly(tool)) {
    detail(tool.title || tool.name, tool.description, el("p", {class: "hint app-only-note", text: "App only (visibility [\"app\"]): its view calls it; the model is not offered it, so neither is this page."}),
      el("details", {}, el("summary", {text: "input schema"}), el("pre", {text: pretty(tool.inputSchema)})));
    return;
  }
  const form = objectForm(tool.inputSchema);
  // A 2025-11-25 tool says whether it may or must run as a task; a
  // 2026-07-28 server decides by itself, for any tool.
  // Neither is offered by a server that does not run tasks (state.tasks),
  // unless the tool requires it.
  let support = (tool.execution && tool.execution.taskSupport) || (stateless ? "optional" : "forbidden");
  if (!serverTasks && support !== "required") support = "forbidden";
  const taskBox = el("input", {type: "checkbox", id: "as-task", checked: support === "required", disabled: support === "required"});
  const taskField = support === "forbidden" ? null : el("label", {}, taskBox, support === "required" ? " runs as a task" : " run as a task");
  // The call as it stands, copied without running it (log.js).
  const copy = (ev, what) => {
    let args;
    try { args = form.read(); } catch (err) { showError(err); return; }
    const h = {action: "call", name: tool.name, args, task: taskBox.checked, target: currentTarget()};
    copyText(what === "mcp" ? mcpCommand(h) : pretty(jsonRequest(h)), ev.target);
  };
  const f = el("form", {id: "tool-form"}, ...form.nodes, taskField, el("button", {type: "submit", id: "run", text: "Call " + tool.name}), " ",
    el("button", {type: "button", class: "copy-mcp", title: "copy as an mcp command line", text: "Copy mcp", onclick: (ev) => copy(ev, "mcp")}), " ",
    el("button", {type: "button", class: "copy-json", title: "copy as a JSON-RPC request", text: "Copy JSON", onclick: (ev) => copy(ev, "json")}));
  f.addEventListener("submit", (ev) => {
    ev.preventDefault();
    let args;
    try { args = form.read(); } catch (err) { showError(err); return; }
    callTool(tool, args, taskBox.checked);
  });
  keepDraft(f, "tools:" + tool.name); // dev.js
  detail(tool.title || tool.name, tool.description, f, el("details", {}, el("summary", {text: "input schema"}), el("pre", {text: pretty(tool.inputSchema)})));
}

// callTool calls a tool from its form; a tool with a view (_meta.ui) has
// it rendered, and its result (or cancellation) sent to it.
async function callTool(tool, args, task) {
  const ui = toolUI(tool);
  let v = null;
  if (ui && ui.resourceUri) {
    try {
      v = await openView(tool, args);
    } catch (err) {
      viewLog("event error", "the view of " + tool.name + " is not rendered: " + err.message);
    }
  }
  run("call", {name: tool.name, arguments: args, task}, (res) => {
    if (v) v.result(res);
    return renderCall(res, tool);
  }, (err) => v && v.cancelled(err.message), {action: "call", name: tool.name, args, task: !!task});
}

function showResource(r) {
  const b = el("button", {type: "button", id: "run", text: "Read"});
  b.addEventListener("click", () => run("read", {uri: r.uri}, renderRead, null, {action: "read", uri: r.uri}));
  detail(r.title || r.name, r.description, el("p", {text: r.uri + (r.mimeType ? " · " + r.mimeType : "")}), b);
}

// suggest offers the server's completions (completion/complete) for the
// text fields among nodes as the user types: ref names the prompt
// ({name}) or template ({uri}), and the other fields go as context.
function suggest(nodes, ref) {
  const inputs = nodes.map((n) => n.querySelector('input[type="text"]')).filter((i) => i);
  for (const input of inputs) {
    const list = el("datalist", {id: "complete-" + input.name});
    input.setAttribute("list", list.id);
    input.after(list);
    let timer, asked = 0;
    input.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        const my = ++asked;
        const context = {};
        for (const o of inputs) if (o !== input && o.value !== "") context[o.name] = o.value;
        try {
          const values = await api("complete", {...ref, argument: input.name, value: input.value, context});
          if (my !== asked) return; // a newer question is on its way
          list.replaceChildren(...values.map((v) => el("option", {value: v})));
        } catch (err) {
          list.replaceChildren(); // no suggestions: the field still takes any text
        }
      }, 150);
    });
  }
}

function showTemplate(t) {
  const names = [...t.uriTemplate.matchAll(/\{[+#./;?&]?([^}]+)\}/g)].flatMap((m) => m[1].split(",").map((v) => v.replace(/\*$|:\d+$/, "")));
  const fields = names.map((n) => fieldFor(n, {type: "string"}, true));
  suggest(fields.map((x) => x.node), {uri: t.uriTemplate});
  const f = el("form", {}, ...fields.map((x) => x.node), el("button", {type: "submit", id: "run", text: "Read"}));
  f.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const vals = Object.fromEntries(fields.map((x) => [x.name, x.read() || ""]));
    const uri = t.uriTemplate.replace(/\{([+#./;?&]?)([^}]+)\}/g, (_, op, vars) => {
      const parts = vars.split(",").map((v) => v.replace(/\*$|:\d+$/, "")).map((v) => (op === "+" || op === "#" ? encodeURI(vals[v]) : encodeURIComponent(vals[v])));
      const sep = {"": ",", "+": ",", "#": ",", ".": ".", "/": "/", ";": ";", "?": "&", "&": "&"}[op];
      return (op === "+" ? "" : op) + parts.join(sep);
    });
    run("read", {uri}, renderRead, null, {action: "read", uri});
  });
  keepDraft(f, "templates:" + t.uriTemplate); // dev.js
  detail(t.title || t.name, t.description, el("p", {text: t.uriTemplate}), f);
}

function showPrompt(p) {
  const props = {}, required = [];
  for (const a of p.arguments || []) {
    props[a.name] = {type: "string", description: a.description};
    if (a.required) required.push(a.name);
  }
  const form = objectForm({properties: props, required});
  suggest(form.nodes, {name: p.name});
  const f = el("form", {}, ...form.nodes, el("button", {type: "submit", id: "run", text: "Get " + p.name}));
  f.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const args = form.read();
    run("get", {name: p.name, arguments: args}, renderPrompt, null, {action: "get", name: p.name, args});
  });
  keepDraft(f, "prompts:" + p.name); // dev.js
  detail(p.title || p.name, p.description, f);
}

function showError(err) {
  $("#result").replaceChildren(el("p", {class: "error", text: err.message}));
}

// ---- results ----

function renderContent(c) {
  switch (c.type) {
  case "text": return el("pre", {class: "block text", text: c.text});
  case "image": return el("div", {class: "block image"}, el("img", {src: "data:" + c.mimeType + ";base64," + c.data, alt: "image " + c.mimeType}));
  case "audio": return el("div", {class: "block audio"}, el("audio", {controls: true, src: "data:" + c.mimeType + ";base64," + c.data}));
  case "resource": return renderResourceContents(c.resource);
  case "resource_link": return el("div", {class: "block link", text: "resource link: " + c.uri + (c.name ? " (" + c.name + ")" : "")});
  default: return el("pre", {class: "block", text: pretty(c)});
  }
}

function renderResourceContents(r) {
  const head = el("div", {class: "uri", text: r.uri + (r.mimeType ? " · " + r.mimeType : "")});
  if (r.text !== undefined) return el("div", {class: "block resource"}, head, el("pre", {text: r.text}));
  if ((r.mimeType || "").startsWith("image/")) return el("div", {class: "block resource"}, head, el("img", {src: "data:" + r.mimeType + ";base64," + r.blob, alt: r.uri}));
  return el("div", {class: "block resource"}, head, el("pre", {text: "(" + Math.floor((r.blob || "").length * 3 / 4) + " bytes of binary data)"}));
}

function renderCall(res, tool) {
  const out = el("div", {class: "call-result" + (res.isError ? " is-error" : "")});
  if (res.isError) out.append(el("p", {class: "error", text: "The tool reported an error:"}));
  for (const c of res.content || []) out.append(renderContent(c));
  if (res.structuredContent !== undefined) {
    out.append(el("div", {class: "structured"},
      el("div", {}, el("h3", {text: "structuredContent"}), el("pre", {class: "structured-content", text: pretty(res.structuredContent)})),
      el("div", {}, el("h3", {text: "outputSchema"}), el("pre", {text: tool.outputSchema ? pretty(tool.outputSchema) : "(none)"}))));
  }
  return out;
}

function renderRead(res) {
  return el("div", {class: "read-result"}, ...(res.contents || []).map(renderResourceContents));
}

function renderPrompt(res) {
  const out = el("div", {class: "prompt-result"});
  if (res.description) out.append(el("p", {class: "desc", text: res.description}));
  for (const m of res.messages || []) out.append(el("div", {class: "block"}, el("strong", {text: m.role + ":"}), renderContent(m.content)));
  return out;
}

// ---- tasks and roots ----

const terminal = (status) => status === "completed" || status === "failed" || status === "cancelled";

// showTask shows a task's latest status in the Tasks list and under the
// call, with a button to cancel it while it runs.
function showTask(tool, t) {
  const line = tool + " · " + t.status + (t.statusMessage ? " - " + t.statusMessage : "");
  let li = [...$("#tasks").children].find((x) => x.dataset.taskId === t.taskId);
  if (!li) {
    li = el("li", {"data-task-id": t.taskId});
    $("#tasks").prepend(li);
  }
  const cancel = terminal(t.status) ? null : el("button", {type: "button", class: "task-cancel", text: "Cancel", onclick: async (ev) => {
    ev.target.disabled = true;
    try { await api("task-cancel", {taskId: t.taskId}); } catch (err) { li.append(el("span", {class: "error", text: " " + err.message})); }
  }});
  li.replaceChildren(el("span", {class: "status", text: t.status}), " " + tool + " ", el("code", {text: t.taskId}), t.statusMessage ? " - " + t.statusMessage : "", " ", cancel);
  $("#progress").hidden = false;
  $("#progress-bar").removeAttribute("value");
  if (terminal(t.status)) $("#progress-bar").value = $("#progress-bar").max;
  $("#progress-text").textContent = "task " + line;
}

function showRoots(roots) {
  $("#roots").replaceChildren(...roots.map((r) => el("li", {"data-uri": r.uri}, el("code", {text: r.uri}), " ",
    el("button", {type: "button", class: "root-remove", text: "Remove", onclick: () => changeRoots("roots-remove", r.uri)}))));
}

async function loadRoots() {
  try { showRoots(await api("roots")); } catch (err) { $("#root-error").textContent = err.message; }
}

async function changeRoots(op, dir) {
  $("#root-error").textContent = "";
  try { showRoots(await api(op, {dir})); } catch (err) { $("#root-error").textContent = err.message; }
}

// ---- the server's questions ----

async function answer(id, result, card) {
  try {
    await api("answer", {id, result});
    card.remove();
  } catch (err) {
    card.append(el("p", {class: "error", text: err.message}));
  }
}

// webURL returns s as an absolute http: or https: URL, or null: a link
// the server names must not run script (javascript:) or open local files.
function webURL(s) {
  try {
    const u = new URL(s);
    return u.protocol === "https:" || u.protocol === "http:" ? u.href : null;
  } catch {
    return null;
  }
}

function showElicit(id, p) {
  const card = el("div", {class: "question elicit", "data-id": id}, el("h3", {text: "The server asks"}), el("p", {class: "desc", text: p.message}));
  if (p.mode === "url") {
    const href = webURL(p.url);
    if (href) {
      card.append(el("p", {}, "Open: ", el("a", {href, target: "_blank", rel: "noopener noreferrer", text: href})));
      card.append(el("button", {type: "button", class: "accept", text: "Done", onclick: () => answer(id, {action: "accept"}, card)}));
    } else {
      card.append(el("p", {class: "error refused-url"}, "Not a web link, not opened: ", el("code", {text: String(p.url)})));
    }
  } else {
    const form = objectForm(p.requestedSchema);
    const f = el("form", {}, ...form.nodes, el("button", {type: "submit", class: "accept", text: "Accept"}));
    f.addEventListener("submit", (ev) => {
      ev.preventDefault();
      let content;
      try { content = form.read(); } catch (err) { card.append(el("p", {class: "error", text: err.message})); return; }
      answer(id, {action: "accept", content}, card);
    });
    card.append(f);
  }
  card.append(
    el("button", {type: "button", class: "decline", text: "Decline", onclick: () => answer(id, {action: "decline"}, card)}), " ",
    el("button", {type: "button", class: "cancel", text: "Cancel", onclick: () => answer(id, {action: "cancel"}, card)}));
  $("#questions").append(card);
}

function showSample(id, p) {
  const card = el("div", {class: "question sample", "data-id": id}, el("h3", {text: "The server asks for a model reply; you answer as the model"}));
  if (p.systemPrompt) card.append(el("p", {}, el("strong", {text: "system: "}), p.systemPrompt));
  for (const m of p.messages || []) {
    for (const c of [].concat(m.content)) card.append(el("div", {class: "block"}, el("strong", {text: m.role + ":"}), renderContent(c)));
  }
  const reply = el("textarea", {name: "reply", placeholder: "the model's reply"});
  card.append(reply,
    el("button", {type: "button", class: "accept", text: "Send", onclick: () => answer(id, {text: reply.value}, card)}), " ",
    el("button", {type: "button", class: "decline", text: "Refuse", onclick: () => answer(id, {refuse: true}, card)}));
  $("#questions").append(card);
}

// ---- start ----

$("#connect-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  $("#detail").replaceChildren();
  $("#result").replaceChildren();
  try {
    showState(await api("connect", {target: $("#target").value}));
  } catch (err) {
    setStatus("error: " + err.message);
  }
});
$("#root-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  changeRoots("roots-add", $("#root-dir").value).then(() => { if (!$("#root-error").textContent) $("#root-dir").value = ""; });
});
// The feed starts once every script has run (apps.js too, which the
// feed's handlers call): between two deferred scripts the browser may run
// other tasks, such as the feed's first events.
document.addEventListener("DOMContentLoaded", openFeed);
