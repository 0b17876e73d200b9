// mcp dev's part of the page: a banner with the state of the last build
// (the compiler's output when it failed), the item picked again after the
// rebuilt server is connected, and the arguments typed into the forms,
// kept by tool or prompt name across the rebuilds. Under mcp inspect
// (state.dev unset) none of it shows.
"use strict";

const DRAFTS_MAX = 200; // forms whose typed arguments are kept

const devState = {
  drafts: new Map(), // "tools:NAME" -> {field key: value typed}
  picked: null, // {kind, key}: the item shown in the detail pane
  repick: false, // show it again once the lists are fetched
};

// devBuild shows the state of mcp dev's last build (a "dev" event, or the
// state's dev).
function devBuild(d, time) {
  if (!d || !d.state) return;
  const b = $("#dev-banner");
  b.hidden = false;
  b.className = "dev-" + d.state;
  b.dataset.build = d.build;
  switch (d.state) {
  case "building":
    b.replaceChildren(el("span", {text: "building " + d.package + " (#" + d.build + ")…"}));
    break;
  case "failed":
    b.replaceChildren(el("strong", {text: "build #" + d.build + " of " + d.package + " failed"}),
      el("span", {text: " · the server running is the last one built"}),
      el("pre", {class: "build-output", text: d.output || ""}));
    break;
  case "ok":
    b.replaceChildren(el("span", {text: "built " + d.package + " (#" + d.build + ", " + (d.seconds || 0).toFixed(1) + "s) · server restarted"}));
    break;
  }
  if (time) logLine("event" + (d.state === "failed" ? " error" : ""), time + " build #" + d.build + " " + d.state);
}

// itemKey names an item of a list across servers: by name, or a
// resource by its URI.
function itemKey(kind, item) {
  if (kind === "resources") return item.uri;
  if (kind === "templates") return item.uriTemplate;
  return item.name;
}

// devPicked notes the item shown, to show it again after a rebuild. A
// pick made while the lists are still being fetched is the one shown:
// showing the item picked before the rebuild once they are would replace
// the form the user is typing into.
function devPicked(kind, item) {
  devState.picked = {kind, key: itemKey(kind, item)};
  devState.repick = false;
}

// devConnected: a server was connected; under mcp dev, the lists about
// to be fetched show the item picked before.
function devConnected() {
  devState.repick = !!state.dev;
}

// devListed runs once the lists are fetched: under mcp dev, after a
// rebuild, the item picked before is shown again, with the new server's
// schema and the arguments typed before.
function devListed() {
  if (!devState.repick) return;
  devState.repick = false;
  const p = devState.picked;
  if (!p) return;
  const item = (listed[p.kind] || []).find((x) => itemKey(p.kind, x) === p.key);
  if (!item) {
    $("#detail").replaceChildren(el("p", {class: "hint gone", text: p.key + " is no longer listed by the rebuilt server."}));
    return;
  }
  const b = [...$("#" + p.kind).querySelectorAll("button")].find((x) => x.dataset.name === item.name);
  document.querySelectorAll("nav button.selected").forEach((x) => x.classList.remove("selected"));
  if (b) b.classList.add("selected");
  const show = {tools: showTool, resources: showResource, templates: showTemplate, prompts: showPrompt}[p.kind];
  show(item);
}

// keepDraft fills form with the arguments typed before into the form of
// key ("tools:NAME"), and keeps those typed from now on. Only fields the
// user changed are kept: the others take the new server's defaults.
function keepDraft(form, key) {
  if (!state.dev) return;
  const fieldKey = (x) => (x.type === "checkbox" ? x.name + "\u0000" + x.value : x.name);
  const draft = devState.drafts.get(key) || {};
  for (const x of form.elements) {
    if (!x.name || !(fieldKey(x) in draft)) continue;
    if (x.type === "checkbox") x.checked = draft[fieldKey(x)];
    else x.value = draft[fieldKey(x)];
  }
  const keep = (ev) => {
    const x = ev.target;
    if (!x.name) return;
    const d = devState.drafts.get(key) || {};
    d[fieldKey(x)] = x.type === "checkbox" ? x.checked : x.value;
    devState.drafts.delete(key); // the newest last: the oldest go first
    devState.drafts.set(key, d);
    if (devState.drafts.size > DRAFTS_MAX) devState.drafts.delete(devState.drafts.keys().next().value);
  };
  form.addEventListener("input", keep);
  form.addEventListener("change", keep);
}
