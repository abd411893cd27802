// What every view shares: building elements, fetching the JSON API, and
// the number formats of the CLI's tables (cli/human_format.cc).

// A new element: attributes from `attrs` (class, href, title, data-*),
// children appended (strings become text, never HTML).
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child !== undefined && child !== null) node.append(child);
  }
  return node;
}

// An SVG element with attributes.
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  for (const child of children) node.append(child);
  return node;
}

// GET `path` of the API; resolves to its JSON, or rejects with an Error
// whose message is the server's ({"status", "message"}).
export async function fetchJson(path) {
  const response = await fetch(path, { credentials: "same-origin", cache: "no-store" });
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    const message = body && body.message ? body.message : `HTTP ${response.status}`;
    throw new Error(message);
  }
  return body;
}

// 1234567 -> "1.23 ms"; as the CLI: ns, µs, ms, s.
export function formatDuration(ns) {
  if (ns < 1e3) return `${Math.round(ns)} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toFixed(ns < 1e4 ? 2 : 1)} µs`;
  if (ns < 1e9) return `${(ns / 1e6).toFixed(ns < 1e7 ? 2 : 1)} ms`;
  return `${(ns / 1e9).toFixed(ns < 1e10 ? 2 : 1)} s`;
}

// A count with thousands separators.
export function formatCount(n) {
  return Number(n).toLocaleString("en-US");
}

// 0.1234 -> "12.3%".
export function formatShare(share) {
  return `${(share * 100).toFixed(1)}%`;
}

// A Unix time in ns as the local "YYYY-MM-DD HH:MM:SS".
export function formatTime(unixNs) {
  if (!unixNs) return "-";
  const d = new Date(unixNs / 1e6);
  const pad = (v) => String(v).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
         `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

// A horizontal bar of `share` (0..1) of its cell.
export function shareBar(share, className = "bar") {
  const fill = el("span", { class: `${className}-fill` });
  fill.style.width = `${Math.max(0, Math.min(1, share)) * 100}%`;
  return el("span", { class: className, title: formatShare(share) }, fill);
}

// A table: `columns` [{title, numeric}], `rows` arrays of cells.
export function table(columns, rows, attrs = {}) {
  const head = el("tr", {}, columns.map((c) => el("th", { class: c.numeric ? "num" : undefined }, c.title)));
  const body = rows.map((cells) =>
    el("tr", {}, cells.map((cell, i) => el("td", { class: columns[i].numeric ? "num" : undefined }, cell))));
  return el("table", attrs, el("thead", {}, head), el("tbody", {}, body));
}

// Shows `message` as the view's error (replacing `node`'s content).
export function showError(node, message) {
  node.replaceChildren(el("p", { class: "error" }, message));
}

// Sets the header's trail: [{text, href}] after the brand.
export function setCrumbs(context, crumbs) {
  context.crumbs.replaceChildren(...crumbs.map((c) =>
    c.href ? el("a", { href: c.href }, c.text) : el("span", {}, c.text)));
  document.title = ["optrace", ...crumbs.map((c) => c.text)].join(" · ");
}
