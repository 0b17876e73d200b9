// The sandbox proxy of mcp inspect's MCP Apps views. It runs on an origin
// of its own (a second loopback port), served with the view's
// Content-Security-Policy, and loads the view's HTML into an inner frame
// that inherits that policy. As in the reference host, the inner frame
// has allow-same-origin: the view shares this origin (frameworks such as
// Vue read properties of window.parent, which an opaque origin forbids),
// never the inspector's, which it cannot reach. This proxy is no barrier
// against the view, which can script it: the page trusts nothing that
// comes from this frame. It relays JSON-RPC messages between the
// inspector (its parent) and the view, except the
// ui/notifications/sandbox-* ones, which are its own.
"use strict";

(() => {
  const host = window.parent;
  const hostOrigin = new URLSearchParams(location.search).get("host");
  let inner = null;

  const isSandboxMethod = (m) => typeof m.method === "string" && m.method.startsWith("ui/notifications/sandbox-");

  // load builds the inner frame, once, from the host's
  // sandbox-resource-ready notification.
  function load(p) {
    if (inner || typeof p.html !== "string") return;
    inner = document.createElement("iframe");
    // scripts, forms and this origin; no popups, top navigation or downloads
    inner.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
    const features = {camera: "camera", microphone: "microphone", geolocation: "geolocation", clipboardWrite: "clipboard-write"};
    const allow = Object.keys(p.permissions || {}).filter((k) => features[k]).map((k) => features[k]);
    if (allow.length) inner.setAttribute("allow", allow.join("; "));
    inner.setAttribute("referrerpolicy", "no-referrer");
    inner.style.cssText = "border:0;width:100%;height:100%;display:block";
    inner.srcdoc = p.html;
    document.body.append(inner);
  }

  window.addEventListener("message", (ev) => {
    const m = ev.data;
    if (!m || typeof m !== "object" || m.jsonrpc !== "2.0") return;
    if (ev.source === host && ev.origin === hostOrigin) {
      if (m.method === "ui/notifications/sandbox-resource-ready") load(m.params || {});
      else if (!isSandboxMethod(m) && inner) inner.contentWindow.postMessage(m, "*");
    } else if (inner && ev.source === inner.contentWindow) {
      if (!isSandboxMethod(m)) host.postMessage(m, hostOrigin);
    }
  });

  document.documentElement.style.cssText = "height:100%";
  document.addEventListener("DOMContentLoaded", () => {
    document.body.style.cssText = "margin:0;height:100%";
    if (hostOrigin) host.postMessage({jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {}}, hostOrigin);
  });
})();
