// The inspector page's theme (auto, light or dark, kept in localStorage
// and passed on to a view) and its keyboard shortcuts (? lists them).
"use strict";

const THEMES = ["auto", "light", "dark"];

// themeChoice is the user's choice: auto follows the system.
function themeChoice() {
  const t = localStorage.getItem("gomcp-inspector-theme");
  return THEMES.includes(t) ? t : "auto";
}

// currentTheme is the theme on show, light or dark (for views).
function currentTheme() {
  const t = themeChoice();
  if (t !== "auto") return t;
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function applyTheme() {
  const t = themeChoice();
  if (t === "auto") document.documentElement.removeAttribute("data-theme");
  else document.documentElement.dataset.theme = t;
  $("#theme").textContent = t;
  if (view) view.themeChanged(currentTheme()); // apps.js
}

function nextTheme() {
  localStorage.setItem("gomcp-inspector-theme", THEMES[(THEMES.indexOf(themeChoice()) + 1) % THEMES.length]);
  applyTheme();
}

// typing tells whether the key goes to a field rather than to the page.
function typing(target) {
  return target.closest("input, textarea, select, [contenteditable]") !== null;
}

// moveInNav moves the focus to the next (by 1) or previous (-1) item of
// the lists.
function moveInNav(by) {
  const items = [...document.querySelectorAll("nav ul:not(#roots):not(#tasks) button")];
  if (!items.length) return;
  const i = items.indexOf(document.activeElement);
  const next = items[i < 0 ? (by > 0 ? 0 : items.length - 1) : Math.min(Math.max(i + by, 0), items.length - 1)];
  next.focus();
  next.scrollIntoView({block: "nearest"});
}

function toggleKeys(show) {
  const d = $("#keys");
  d.hidden = show === undefined ? !d.hidden : !show;
  if (!d.hidden) d.focus();
}

document.addEventListener("keydown", (ev) => {
  if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
    const form = ev.target.closest("form") || $("#detail form");
    if (form) { ev.preventDefault(); form.requestSubmit(); }
    return;
  }
  if (ev.key === "Escape") {
    if (!$("#keys").hidden) toggleKeys(false);
    else if (view && view.mode === "fullscreen") view.setMode("inline");
    else if (typing(ev.target)) ev.target.blur();
    return;
  }
  if (ev.ctrlKey || ev.metaKey || ev.altKey || typing(ev.target)) return;
  const nav = ev.target.closest("nav");
  switch (ev.key) {
  case "ArrowDown": case "j":
    if (nav || ev.key === "j") { ev.preventDefault(); moveInNav(1); }
    return;
  case "ArrowUp": case "k":
    if (nav || ev.key === "k") { ev.preventDefault(); moveInNav(-1); }
    return;
  case "/":
    ev.preventDefault();
    showTab($("#tab-log"));
    $("#log-search").focus();
    return;
  case "m": showTab($("#tab-log")); return;
  case "n": showTab($("#tab-notes")); return;
  case "h": showTab($("#tab-history")); return;
  case "c": ev.preventDefault(); $("#target").focus(); $("#target").select(); return;
  case "t": nextTheme(); return;
  case "?": toggleKeys(); return;
  }
});

// The tabs, as an ARIA tablist: the arrows move between them.
$(".tabs").addEventListener("keydown", (ev) => {
  if (ev.key !== "ArrowLeft" && ev.key !== "ArrowRight") return;
  const tabs = [...document.querySelectorAll('[role="tab"]')];
  const i = tabs.indexOf(document.activeElement);
  const next = tabs[(i + (ev.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
  showTab(next);
  next.focus();
  ev.stopPropagation();
});

$("#theme").addEventListener("click", nextTheme);
$("#keys-help").addEventListener("click", () => toggleKeys());
$("#keys").tabIndex = -1;
matchMedia("(prefers-color-scheme: dark)").addEventListener("change", applyTheme);
applyTheme();
