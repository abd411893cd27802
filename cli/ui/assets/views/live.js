// The live tail: what `optrace tail` prints, as a table whose newest row
// is on top, read from /api/live as server-sent events (cli/ui/ui_live.h).
// The filters are the URL's (?session=, pid=, label=, level=, name=,
// target=, spans=1), so that a filtered view can be shared. The server
// sends at most max_items rows a period and counts the rest ("thinned");
// the page keeps the last kMaxRows rows, so that it stays responsive at
// any op rate. Pause freezes the table; the counts go on.
import { el, formatCount, formatDuration, setCrumbs } from "../format.js";

const kMaxRows = 500;
const kFilters = ["session", "pid", "label", "level", "name", "target", "spans"];
const kLevels = ["", "error", "warning", "info", "debug", "trace"];
const kTargets = ["", "cpu", "gpu", "other"];

// "12:34:56.789" of a Unix time in ns.
function clock(unixNs) {
  if (!unixNs) return "-";
  const d = new Date(unixNs / 1e6);
  const pad = (v, n = 2) => String(v).padStart(n, "0");
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

// One row of an item of the stream (an event or a span, as `tail --json`).
function itemRow(item) {
  const span = item.type === "span";
  const duration = item.duration_ns ?? null;
  return el("tr", { "data-kind": span ? "span" : item.kind, "data-session": item.session_id },
    el("td", { class: "num" }, clock(span ? item.start_unix_ns : item.unix_ns)),
    el("td", {}, span ? "span" : item.kind),
    el("td", { class: "key" }, item.name || "-"),
    el("td", { class: "key" }, item.tag || ""),
    el("td", { class: "num" }, el("a", { href: `/session/${item.session_id}` }, String(item.session_id))),
    el("td", { class: "num" }, item.pid !== undefined ? String(item.pid) : ""),
    el("td", {}, item.device ? item.device.name : ""),
    el("td", { class: "num" }, duration === null ? "" : formatDuration(duration)));
}

// The filter form: a GET of this page with the fields as its query.
function filterForm(query) {
  const input = (name, attrs = {}) =>
    el("label", {}, `${name} `, el("input", { name, value: query.get(name) ?? "", ...attrs }));
  const select = (name, words) => el("label", {}, `${name} `, el("select", { name },
    words.map((w) => el("option", { value: w, selected: query.get(name) === w ? "" : undefined }, w || "any"))));
  return el("form", { class: "filters", method: "get", action: "/live" },
    input("session", { size: 6, inputmode: "numeric" }), select("level", kLevels),
    input("name", { size: 16, placeholder: "RE2 of name or tag" }), select("target", kTargets),
    el("label", {}, el("input", { type: "checkbox", name: "spans", value: "1",
      checked: query.get("spans") === "1" ? "" : undefined }), " spans"),
    el("button", { type: "submit" }, "apply"));
}

export function liveView(context) {
  const query = new URLSearchParams();
  for (const name of kFilters) {
    const value = context.query.get(name);
    if (value) query.set(name, value);
  }
  const session = query.get("session");
  setCrumbs(context, [{ text: "sessions", href: "/" },
    ...(session ? [{ text: `session ${session}`, href: `/session/${session}` }] : []), { text: "live" }]);

  const counts = el("p", { id: "live-counts", class: "note" }, "connecting…");
  const paused = el("span", { id: "live-paused", class: "note" });
  const pause = el("button", { id: "live-pause", type: "button" }, "pause");
  const body = el("tbody");
  const head = el("tr", {}, ["TIME", "KIND", "NAME", "TAG", "SESSION", "PID", "DEVICE", "DURATION"]
    .map((t, i) => el("th", { class: [0, 4, 5, 7].includes(i) ? "num" : undefined }, t)));
  const listing = el("table", { id: "live-ops", class: "listing" }, el("thead", {}, head), body);
  const message = el("p", { id: "live-message" });
  context.main.replaceChildren(
    el("h1", {}, "Live ops"), filterForm(query),
    el("div", { class: "section-head" }, pause, paused), counts, message, listing);

  // What the page measures of itself: the longest time one batch took to
  // draw, and the longest a 100 ms timer fired late (how long an input
  // would have waited), shown as data-* on the counts for benchmarks.
  const state = { paused: false, pausedItems: 0, batches: 0, maxDrawMs: 0, maxLagMs: 0, limit: null };
  let due = performance.now() + 100;
  const lagTimer = setInterval(() => {
    const now = performance.now();
    state.maxLagMs = Math.max(state.maxLagMs, now - due);
    due = now + 100;
  }, 100);

  pause.addEventListener("click", () => {
    state.paused = !state.paused;
    pause.textContent = state.paused ? "resume" : "pause";
    state.pausedItems = 0;
    paused.textContent = state.paused ? "paused" : "";
  });

  const showCounts = (totals) => {
    const limit = state.limit ? `at most ${formatCount(state.limit.max_items)} rows per ` +
      `${state.limit.period_ms} ms reach the page` : "";
    counts.textContent = `received ${formatCount(totals.received)}, shown ` +
      `${formatCount(totals.forwarded)}, thinned ${formatCount(totals.thinned)} (${limit})` +
      (totals.skipped ? `, skipped by the daemon ${formatCount(totals.skipped)}` : "");
    const data = { received: totals.received, forwarded: totals.forwarded, thinned: totals.thinned,
      skipped: totals.skipped, rows: body.rows.length, batches: state.batches,
      "max-draw-ms": state.maxDrawMs.toFixed(1), "max-lag-ms": state.maxLagMs.toFixed(1) };
    for (const [name, value] of Object.entries(data)) counts.setAttribute(`data-${name}`, value);
  };

  const source = new EventSource(`/api/live?${query}`);
  const stop = (text, isError) => {
    source.close();
    clearInterval(lagTimer);
    message.className = isError ? "error" : "note";
    message.textContent = text;
    context.status.textContent = "stopped";
  };
  source.addEventListener("start", (event) => {
    state.limit = JSON.parse(event.data);
    context.status.textContent = "live";
    message.textContent = "";
  });
  source.addEventListener("batch", (event) => {
    const started = performance.now();
    const batch = JSON.parse(event.data);
    ++state.batches;
    if (state.paused) {
      state.pausedItems += batch.items.length + batch.thinned;
      paused.textContent = `paused; ${formatCount(state.pausedItems)} ops since`;
    } else if (batch.items.length > 0) {
      const rows = document.createDocumentFragment();
      for (let i = batch.items.length - 1; i >= 0; --i) rows.append(itemRow(batch.items[i]));
      body.prepend(rows);
      while (body.rows.length > kMaxRows) body.lastElementChild.remove();
    }
    state.maxDrawMs = Math.max(state.maxDrawMs, performance.now() - started);
    showCounts(batch.totals);
  });
  source.addEventListener("end", (event) => {
    const end = JSON.parse(event.data);
    stop(end.message, end.status !== 200);
  });
  source.addEventListener("error", async () => {
    if (source.readyState !== EventSource.CLOSED) {
      context.status.textContent = "reconnecting…";
      return;
    }
    // Refused before any event (a bad filter, an unknown session): the
    // answer's message, read once more as a plain request.
    const abort = new AbortController();
    try {
      const response = await fetch(`/api/live?${query}`, { signal: abort.signal });
      const body = response.ok ? null : await response.json().catch(() => null);
      abort.abort();
      stop(body && body.message ? body.message : `the stream was refused (HTTP ${response.status})`, true);
    } catch (error) {
      stop(`the stream failed: ${error.message}`, true);
    }
  });
}
