// The live tail: what `optrace tail` prints, as a table whose newest row
// is on top, read from /api/live as server-sent events (cli/ui/ui_live.h).
// The filters are the URL's (?session=, pid=, label=, level=, name=,
// target=, spans=1), so that a filtered view can be shared. The server
// sends at most max_items rows a period and counts the rest ("thinned");
// the page keeps the last kMaxRows rows. It stays responsive at any op
// rate because its work per message is constant and small: a message is
// only queued; every kDrawMs the page parses just the newest queued
// batches that fill the table, and counts from the newest's totals. A
// page that falls behind (a slow machine, a hidden tab) draws fewer,
// fuller frames instead of queueing work. Pause freezes the table; the
// counts go on.
import { el, formatCount, formatDuration, setCrumbs } from "../format.js";

const kMaxRows = 200;
const kDrawMs = 250;
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

// The columns; the table's rows are kMaxRows clones of kRow made once,
// whose text nodes a draw rewrites in place (no element is made or
// removed while the stream runs).
const kColumns = [
  { title: "TIME", class: "num" }, { title: "KIND" }, { title: "NAME", class: "key" },
  { title: "TAG", class: "key" }, { title: "SESSION", class: "num" }, { title: "PID", class: "num" },
  { title: "DEVICE" }, { title: "DURATION", class: "num" },
];
const kRow = el("tr", {}, kColumns.map((c, i) =>
  el("td", { class: c.class }, i === 4 ? el("a", {}, " ") : " ")));

// A row of the pool: the row, its link, and its cells' text nodes.
function newPoolRow() {
  const row = kRow.cloneNode(true);
  const link = row.cells[4].firstChild;
  const texts = Array.from(row.cells, (cell, i) => (i === 4 ? link : cell).firstChild);
  return { row, link, texts, session: null };
}

// The texts of an item of the stream (an event or a span, as `tail --json`).
function itemTexts(item) {
  const span = item.type === "span";
  const duration = item.duration_ns ?? null;
  return [clock(span ? item.start_unix_ns : item.unix_ns), span ? "span" : item.kind,
    item.name || "-", item.tag || "", String(item.session_id),
    item.pid !== undefined ? String(item.pid) : "", item.device ? item.device.name : "",
    duration === null ? "" : formatDuration(duration)];
}

// Shows `item` in pool row `entry`, touching only what changed.
function fillRow(entry, item) {
  const kind = item.type === "span" ? "span" : item.kind;
  if (entry.row.dataset.kind !== kind) entry.row.dataset.kind = kind;
  if (entry.session !== item.session_id) {
    entry.session = item.session_id;
    entry.link.href = `/session/${item.session_id}`;
  }
  itemTexts(item).forEach((text, i) => {
    if (entry.texts[i].data !== text) entry.texts[i].data = text;
  });
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
  const head = el("tr", {}, kColumns.map((c) => el("th", { class: c.class === "num" ? "num" : undefined }, c.title)));
  const listing = el("table", { id: "live-ops", class: "listing live" }, el("thead", {}, head), body);
  const message = el("p", { id: "live-message" });
  context.main.replaceChildren(
    el("h1", {}, "Live ops"), filterForm(query),
    el("div", { class: "section-head" }, pause, paused), counts, message, listing);

  // What the page measures of itself: the longest time one draw took, and
  // the longest a 100 ms timer fired late (how long an input would have
  // waited), shown as data-* on the counts for benchmarks.
  const state = { paused: false, pausedAt: 0, batches: 0, maxDrawMs: 0, maxLagMs: 0, limit: null,
    queued: [], shown: [], pool: [] };
  let due = performance.now() + 100;
  const lagTimer = setInterval(() => {
    const now = performance.now();
    state.maxLagMs = Math.max(state.maxLagMs, now - due);
    due = now + 100;
  }, 100);

  pause.addEventListener("click", () => {
    state.paused = !state.paused;
    pause.textContent = state.paused ? "resume" : "pause";
    state.pausedAt = Number(counts.dataset.received ?? 0);
    paused.textContent = state.paused ? "paused" : "";
  });

  const showCounts = (totals) => {
    const limit = state.limit ? `at most ${formatCount(state.limit.max_items)} rows per ` +
      `${state.limit.period_ms} ms reach the page` : "";
    counts.textContent = `received ${formatCount(totals.received)}, sent here ` +
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
    draw();
    clearInterval(drawTimer);
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
  // A message is only queued; draw() takes the queue.
  source.addEventListener("batch", (event) => {
    state.queued.push(event.data);
    ++state.batches;
  });
  const draw = () => {
    if (state.queued.length === 0) return;
    const started = performance.now();
    const queued = state.queued;
    state.queued = [];
    const newest = JSON.parse(queued[queued.length - 1]);
    if (state.paused) {
      paused.textContent =
        `paused; ${formatCount(newest.totals.received - state.pausedAt)} ops since`;
    } else {
      // The newest batches that fill the table, newest item first.
      const items = [];
      for (let i = queued.length - 1; i >= 0 && items.length < kMaxRows; --i) {
        const batch = i === queued.length - 1 ? newest : JSON.parse(queued[i]);
        for (let j = batch.items.length - 1; j >= 0 && items.length < kMaxRows; --j) {
          items.push(batch.items[j]);
        }
      }
      if (items.length > 0) {
        state.shown = items.concat(state.shown).slice(0, kMaxRows);
        while (state.pool.length < state.shown.length) {
          state.pool.push(newPoolRow());
          body.append(state.pool[state.pool.length - 1].row);
        }
        state.shown.forEach((item, i) => fillRow(state.pool[i], item));
      }
    }
    state.maxDrawMs = Math.max(state.maxDrawMs, performance.now() - started);
    showCounts(newest.totals);
  };
  const drawTimer = setInterval(draw, kDrawMs);
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
