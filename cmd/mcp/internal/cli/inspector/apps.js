// MCP Apps in the inspector's page: the host end of the app bridge
// (JSON-RPC 2.0 over postMessage, MCP Apps 2026-01-26). A tool whose
// _meta.ui names a view has it rendered when called: mcp inspect reads the
// view (api "app") and serves a sandbox proxy page for it on an origin of
// its own; this page talks only to that frame's window, checking the
// source and origin of every message, and answers the view's requests,
// passing tools/call and resources/read to the view's own server (api
// "app-call", "app-read", which refuse tools not visible to apps).
"use strict";

const APPS_PROTOCOL = "2026-01-26";
const HOST_MODES = ["inline", "fullscreen"];
const VIEW_MAX_HEIGHT = 4000; // pixels: a view's size request is capped
const TEARDOWN_WAIT = 3000; // ms the view has to answer ui/resource-teardown
// The content blocks the page takes in ui/message and ui/update-model-context.
const CONTENT_MODALITIES = {text: {}, image: {}, audio: {}, resource: {}, resourceLink: {}};

// toolUI returns a tool's _meta.ui ({resourceUri, visibility}, the
// visibility defaulted), or null when it has none.
function toolUI(tool) {
  const m = tool._meta || {};
  const ui = m.ui && typeof m.ui === "object" ? m.ui : {};
  const uri = ui.resourceUri || m["ui/resourceUri"];
  if (uri === undefined && ui.visibility === undefined) return null;
  const visibility = Array.isArray(ui.visibility) && ui.visibility.length ? ui.visibility : ["model", "app"];
  return {resourceUri: typeof uri === "string" && uri.startsWith("ui://") ? uri : null, visibility};
}

// appOnly: a tool only views call (visibility without "model"); the page,
// which plays the model, does not offer it.
function appOnly(tool) {
  const ui = toolUI(tool);
  return !!ui && !ui.visibility.includes("model");
}

function rpcError(code, message) {
  const err = new Error(message);
  err.code = code;
  return err;
}

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let view = null; // the view on show: at most one
let closing = Promise.resolve(); // the teardown of the last view closed

// viewLog writes a line about the view in the page's log.
function viewLog(cls, text, data) {
  let json = data === undefined ? "" : JSON.stringify(data);
  if (json.length > 2000) json = json.slice(0, 2000) + "… (" + json.length + " characters)";
  logLine("view " + cls, new Date().toTimeString().slice(0, 8) + " view: " + text, json ? el("pre", {text: json}) : null);
}

// viewOpened logs the "app" event of the feed: the policy a view got, for
// review (the audit trail the MCP Apps specification asks for).
function viewOpened(time, d) {
  logLine("view event", time + " view of " + d.tool + " (" + d.uri + ") under " + d.policy +
    (d.allow ? "; allow " + d.allow : "") + (d.dropped ? "; origins refused: " + d.dropped.join(" ") : ""));
}

// closeView tears the view down: ui/resource-teardown first, waiting a
// while for the view's answer. It returns once that teardown, or one
// begun earlier and not awaited (a pick in the lists), is done: a new view
// replaces the old one in the page, which must not be removed before it
// answers.
async function closeView(reason) {
  const v = view;
  view = null;
  if (v) closing = v.teardown(reason);
  await closing;
}

// openView reads the tool's view and shows it; the call's input goes to
// it once it has initialized.
async function openView(tool, args) {
  await closeView("another call");
  const info = await api("app", {name: tool.name});
  view = new AppView(tool, args, info);
  return view;
}

class AppView {
  constructor(tool, args, info) {
    this.tool = tool;
    this.info = info;
    this.origin = new URL(info.proxy).origin;
    this.queue = []; // host notifications waiting for ui/notifications/initialized
    this.pending = new Map(); // our requests to the view
    this.nextId = 1;
    this.mode = "inline";
    this.cards = []; // open-link questions to withdraw at teardown
    this.onmessage = (ev) => this.receive(ev);
    window.addEventListener("message", this.onmessage);
    this.frame = el("iframe", {
      class: "app-frame" + (info.prefersBorder === false ? "" : " bordered"),
      src: info.proxy + "?host=" + encodeURIComponent(location.origin),
      sandbox: "allow-scripts allow-same-origin", // the proxy's own origin, not the page's
      allow: info.allow || undefined,
      referrerpolicy: "no-referrer",
      title: "view of " + tool.name,
    });
    this.modeButton = el("button", {type: "button", class: "view-mode", text: "Fullscreen", hidden: true,
      onclick: () => this.setMode(this.mode === "inline" ? "fullscreen" : "inline")});
    this.box = el("div", {class: "app-view", "data-tool": tool.name},
      el("div", {class: "view-bar"}, el("span", {text: "view of " + tool.name + " · sandboxed, " + info.policy}), " ", this.modeButton, " ",
        el("button", {type: "button", class: "view-close", text: "Close view", onclick: () => closeView("closed by the user")})),
      this.frame);
    $("#view").replaceChildren(this.box);
    this.notify("ui/notifications/tool-input-partial", {arguments: args});
    this.notify("ui/notifications/tool-input", {arguments: args});
  }

  // ---- the wire ----

  receive(ev) {
    if (ev.source !== this.frame.contentWindow || ev.origin !== this.origin) return;
    const m = ev.data;
    if (!m || typeof m !== "object" || m.jsonrpc !== "2.0") return;
    const hasId = typeof m.id === "string" || typeof m.id === "number";
    if (typeof m.method === "string") {
      viewLog("in", "→ " + m.method + (hasId ? " #" + m.id : ""), m.params);
      if (hasId) this.answer(m);
      else if (m.id === undefined) this.notification(m.method, m.params || {});
    } else if (hasId && this.pending.has(m.id)) {
      this.pending.get(m.id)(m);
      this.pending.delete(m.id);
    }
  }

  post(m) {
    if (m.method) viewLog("out", "← " + m.method + (m.id !== undefined ? " #" + m.id : ""), m.params);
    else viewLog("out", "← " + (m.error ? "error" : "result") + " #" + m.id, m.error || m.result);
    this.frame.contentWindow.postMessage(m, this.origin);
  }

  // notify sends a notification, or queues it until the view initialized:
  // nothing goes to a view before its ui/notifications/initialized.
  notify(method, params) {
    const m = {jsonrpc: "2.0", method, params};
    if (this.initialized) this.post(m);
    else this.queue.push(m);
  }

  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, (m) => (m.error ? reject(rpcError(m.error.code, m.error.message)) : resolve(m.result)));
      this.post({jsonrpc: "2.0", id, method, params});
    });
  }

  async answer(m) {
    let reply;
    try {
      reply = {result: await this.handle(m.method, m.params || {})};
    } catch (err) {
      reply = {error: {code: Number.isInteger(err.code) ? err.code : -32000, message: err.message}};
    }
    if (!this.closed) this.post({jsonrpc: "2.0", id: m.id, ...reply});
  }

  // ---- the view's requests ----

  handle(method, p) {
    if (this.closing) throw rpcError(-32000, "the view is being torn down");
    if (method === "ui/initialize") return this.initialize(p);
    if (method === "ping") return {};
    if (!this.appInfo) throw rpcError(-32600, method + " before ui/initialize");
    switch (method) {
    case "tools/call":
      if (typeof p.name !== "string") throw rpcError(-32602, "tools/call: name must be a string");
      return api("app-call", {view: this.info.view, name: p.name, arguments: p.arguments});
    case "resources/read":
      if (typeof p.uri !== "string") throw rpcError(-32602, "resources/read: uri must be a string");
      return api("app-read", {view: this.info.view, uri: p.uri});
    case "ui/open-link": return this.openLink(p);
    case "ui/message": return this.message(p);
    case "ui/update-model-context":
      viewLog("event", "model context updated: " + JSON.stringify(p));
      return {};
    case "ui/request-display-mode":
      if (HOST_MODES.includes(p.mode) && this.allows(p.mode)) this.setMode(p.mode);
      return {mode: this.mode};
    }
    throw rpcError(-32601, "method not found: " + method);
  }

  initialize(p) {
    if (this.appInfo) throw rpcError(-32600, "ui/initialize was already done");
    this.appInfo = p.appInfo || {};
    const caps = p.appCapabilities || {};
    this.appModes = Array.isArray(caps.availableDisplayModes) ? caps.availableDisplayModes : null;
    this.modeButton.hidden = !this.allows("fullscreen");
    return {
      protocolVersion: APPS_PROTOCOL,
      hostInfo: {name: "gomcp-inspector", version: "0.1.0"},
      hostCapabilities: {openLinks: {}, serverTools: {}, serverResources: {}, logging: {},
        // ui/message and ui/update-model-context: the page shows them in its log
        message: CONTENT_MODALITIES, updateModelContext: {...CONTENT_MODALITIES, structuredContent: {}},
        sandbox: {permissions: this.info.permissions || {}, csp: this.info.csp || {}}},
      hostContext: this.context(),
    };
  }

  context() {
    return {
      toolInfo: {tool: this.tool},
      theme: currentTheme(), // ui.js
      displayMode: this.mode,
      availableDisplayModes: HOST_MODES,
      containerDimensions: this.dimensions(),
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      userAgent: "gomcp-inspector",
      platform: "web",
      deviceCapabilities: {touch: navigator.maxTouchPoints > 0, hover: matchMedia("(hover: hover)").matches},
    };
  }

  // dimensions: the width is the page's, the height follows the view's
  // size-changed notifications up to a bound (fullscreen: both fixed).
  dimensions() {
    if (this.mode === "fullscreen") return {width: window.innerWidth, height: window.innerHeight};
    return {width: this.box.clientWidth, maxHeight: VIEW_MAX_HEIGHT};
  }

  // allows: a mode the view declared (or any, when it declared none).
  allows(mode) {
    return !this.appModes || this.appModes.includes(mode);
  }

  setMode(mode) {
    if (mode === this.mode || !HOST_MODES.includes(mode) || !this.allows(mode)) return;
    this.mode = mode;
    this.box.classList.toggle("fullscreen", mode === "fullscreen");
    this.modeButton.textContent = mode === "fullscreen" ? "Exit fullscreen" : "Fullscreen";
    this.notify("ui/notifications/host-context-changed", {displayMode: mode, containerDimensions: this.dimensions()});
  }

  // themeChanged tells the view the page's new theme.
  themeChanged(theme) {
    this.notify("ui/notifications/host-context-changed", {theme});
  }

  // openLink asks the user in the page; only http and https links, one
  // question at a time.
  openLink(p) {
    const href = webURL(p.url);
    if (!href) throw rpcError(-32602, "Invalid URL: the inspector opens only http and https links");
    if (this.cards.length) throw rpcError(-32000, "another link is waiting for the user");
    return new Promise((resolve, reject) => {
      const done = (ok) => {
        card.remove();
        this.cards = [];
        viewLog("event", (ok ? "opened " : "the user refused to open ") + href);
        if (!ok) return reject(rpcError(-32000, "Link opening denied by user"));
        window.open(href, "_blank", "noopener,noreferrer");
        resolve({});
      };
      const card = el("div", {class: "question open-link"}, el("h3", {text: "The view of " + this.tool.name + " asks to open a link"}),
        el("p", {}, el("code", {text: href})),
        el("button", {type: "button", class: "accept", text: "Open", onclick: () => done(true)}), " ",
        el("button", {type: "button", class: "decline", text: "Refuse", onclick: () => done(false)}));
      card.withdraw = () => reject(rpcError(-32000, "the view was torn down"));
      this.cards.push(card);
      $("#questions").append(card);
    });
  }

  message(p) {
    const blocks = [].concat(p.content === undefined ? [] : p.content);
    if (p.role !== "user" || !blocks.length || !blocks.every((b) => b && typeof b === "object" && typeof b.type === "string")) {
      throw rpcError(-32602, "Invalid message format: want role user and content blocks");
    }
    const text = blocks.map((b) => (b.type === "text" ? b.text : "[" + b.type + "]")).join(" ");
    viewLog("event", "message for the chat (" + p.role + "): " + text);
    return {};
  }

  // ---- the view's notifications ----

  notification(method, p) {
    switch (method) {
    case "ui/notifications/sandbox-proxy-ready":
      if (this.proxyReady) return;
      this.proxyReady = true;
      this.post({jsonrpc: "2.0", method: "ui/notifications/sandbox-resource-ready",
        params: {html: this.info.html, csp: this.info.csp || undefined, permissions: this.info.permissions || undefined}});
      return;
    case "ui/notifications/initialized":
      if (!this.appInfo || this.initialized) return;
      this.initialized = true;
      for (const m of this.queue.splice(0)) this.post(m);
      return;
    case "ui/notifications/size-changed":
      if (this.mode === "inline" && Number.isFinite(p.height)) {
        this.frame.style.height = Math.min(Math.max(Math.ceil(p.height), 16), VIEW_MAX_HEIGHT) + "px";
      }
      return;
    case "notifications/message":
      viewLog("event", "log [" + p.level + "]" + (p.logger ? " " + p.logger : "") + ": " + (typeof p.data === "string" ? p.data : JSON.stringify(p.data)));
      return;
    }
  }

  // ---- what the call does ----

  result(res) { this.notify("ui/notifications/tool-result", res); }

  cancelled(reason) { this.notify("ui/notifications/tool-cancelled", {reason}); }

  async teardown(reason) {
    this.closing = true;
    if (this.initialized) {
      const outcome = await Promise.race([
        this.request("ui/resource-teardown", {reason}).then(() => "answered", (err) => "refused: " + err.message),
        delay(TEARDOWN_WAIT).then(() => "no answer in " + TEARDOWN_WAIT / 1000 + "s"),
      ]);
      viewLog("event", "teardown of the view of " + this.tool.name + ": " + outcome);
    }
    this.closed = true;
    window.removeEventListener("message", this.onmessage);
    for (const c of this.cards) { c.remove(); c.withdraw(); }
    this.box.remove();
  }
}
