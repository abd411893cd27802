// One session: its facts, its statistics (as `optrace stats`: total and
// self time, each share as a bar; grouped and sorted as the URL's ?by=
// and ?sort= say) and, when it has steps, their durations as a bar chart
// with the slow ones marked (as `optrace steps`), and its timeline
// (views/timeline.js: drawn once, then as the user zooms and pans).
// Refreshed every 2 s while the session runs.
import {
  el, fetchJson, formatCount, formatDuration, formatShare, formatTime, setCrumbs, shareBar,
  showError, svg, table,
} from "../format.js";
import { comparePicker } from "./diff.js";
import { Timeline } from "./timeline.js";

const kRefreshMs = 2000;
const kGroupings = ["name", "tag", "target"];
const kSorts = ["total", "self"];

// Links that keep the other parameter: "by: name tag target".
function choice(label, name, words, current, query) {
  const links = words.map((word) => {
    const next = new URLSearchParams(query);
    next.set(name, word);
    return word === current ? el("strong", {}, word) : el("a", { href: `?${next}` }, word);
  });
  return el("span", { class: "choice" }, `${label}: `, ...links.flatMap((l) => [l, " "]));
}

function facts(session) {
  const items = [
    ["program", session.command_line || session.executable],
    ["pid", String(session.pid)],
    ["state", session.state],
    ["started", formatTime(session.start_unix_ns)],
    ["ops", formatCount(session.spans)],
    ["drops", formatCount(session.drops.total)],
    ["open ops", formatCount(session.open_ops)],
  ];
  if (session.label) items.unshift(["label", session.label]);
  return el("dl", { class: "facts" }, items.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
}

function statsSection(stats, by, sort, query) {
  const header = el("div", { class: "section-head" }, el("h2", {}, "Where the time went"),
    choice("by", "by", kGroupings, by, query), choice("sort", "sort", kSorts, sort, query));
  if (stats.rows.length === 0) return el("section", {}, header, el("p", { class: "note" }, "no spans"));
  const columns = [
    { title: by.toUpperCase() }, { title: "COUNT", numeric: true }, { title: "TOTAL", numeric: true },
    { title: "SELF", numeric: true }, { title: "MEAN", numeric: true }, { title: "P50", numeric: true },
    { title: "P95", numeric: true }, { title: "P99", numeric: true }, { title: "MAX", numeric: true },
    { title: "SHARE", numeric: true }, { title: "SELF%", numeric: true }, { title: "" },
  ];
  const rows = stats.rows.map((r) => [
    el("span", { class: "key" }, r.key), formatCount(r.count), formatDuration(r.total_ns),
    formatDuration(r.self_ns), formatDuration(r.mean_ns), formatDuration(r.p50_ns),
    formatDuration(r.p95_ns), formatDuration(r.p99_ns), formatDuration(r.max_ns),
    formatShare(r.share), formatShare(r.self_share),
    el("span", { class: "bars" }, shareBar(r.share, "bar"), shareBar(r.self_share, "selfbar")),
  ]);
  const listing = table(columns, rows, { id: "stats", class: "listing" });
  stats.rows.forEach((r, i) => listing.tBodies[0].rows[i].setAttribute("data-key", r.key));
  const where = stats.source === "aggregates"
    ? `whole session, from aggregates; percentiles ±${formatShare(stats.percentile_relative_error)}`
    : "over the stored spans; exact percentiles";
  return el("section", {}, header, listing, el("p", { class: "note" },
    `${formatCount(stats.spans)} spans, ${formatDuration(stats.self_ns)} of op time ` +
    `(${formatDuration(stats.total_ns)} with nesting); ${where}. ` +
    "Bars: share of total time (dark), of self time (light)."));
}

// The steps as bars, one per step, height by duration; slow steps red,
// warm-up ones grey. Hover: the step's figures.
function stepsChart(steps) {
  const width = 900;
  const height = 160;
  const most = Math.max(...steps.map((s) => s.duration_ns), 1);
  const barWidth = width / steps.length;
  const bars = steps.map((s, i) => {
    const h = Math.max(1, (s.duration_ns / most) * (height - 4));
    const kind = s.slow ? "slow" : s.warmup ? "warmup" : "normal";
    const text = `step ${s.step}: ${formatDuration(s.duration_ns)}, ${formatCount(s.ops)} ops` +
      (s.slow ? `, slow (${(s.duration_ns / s.baseline_ns).toFixed(1)}x the median)` : "") +
      (s.top_op ? `; top op ${s.top_op} ${formatDuration(s.top_op_self_ns)}` : "");
    return svg("rect", {
      class: `step step-${kind}`, x: (i * barWidth).toFixed(2), y: (height - h).toFixed(2),
      width: Math.max(1, barWidth - 1).toFixed(2), height: h.toFixed(2), "data-step": s.step,
    }, svg("title", {}, text));
  });
  return svg("svg", { id: "steps-chart", class: "chart", viewBox: `0 0 ${width} ${height}`,
    preserveAspectRatio: "none", role: "img" }, ...bars);
}

function stepsSection(steps) {
  if (steps.steps.length === 0) return null;
  const slow = steps.steps.filter((s) => s.slow);
  return el("section", { id: "steps" }, el("h2", {}, "Steps"), stepsChart(steps.steps),
    el("p", { class: "note" },
      `${formatCount(steps.steps_total)} steps, ${steps.slow_steps} slow (over ` +
      `${steps.rules.slow_factor}x the median of the ${steps.rules.window} before); ` +
      `p50 ${formatDuration(steps.p50_ns)}, p95 ${formatDuration(steps.p95_ns)}, ` +
      `p99 ${formatDuration(steps.p99_ns)}` +
      (slow.length ? `; slow: ${slow.slice(0, 20).map((s) => s.step).join(", ")}` : "") +
      ". Bars: each step's time; red: slow, grey: warm-up."));
}

export function sessionView(context) {
  const id = context.params[0];
  const by = kGroupings.includes(context.query.get("by")) ? context.query.get("by") : "name";
  const sort = kSorts.includes(context.query.get("sort")) ? context.query.get("sort") : "total";
  setCrumbs(context, [{ text: "sessions", href: "/" }, { text: `session ${id}` }]);
  // Made once: a refresh moves them, keeping the picker's choice open and
  // the timeline's range.
  const picker = el("p", { class: "compare" }, comparePicker(id), " · ",
    el("a", { href: `/live?session=${id}` }, "live ops of this session"));
  const timeline = new Timeline(id);
  // The timeline asks for its spans at once, beside the session's other
  // requests (the steps of a long session take the longest), in its place
  // on the page so that it asks for the width it is drawn at.
  context.main.replaceChildren(el("h1", {}, `Session ${id}`), timeline.element);
  timeline.load(null);
  const refresh = async () => {
    let running = false;
    try {
      const [detail, stats, steps] = await Promise.all([
        fetchJson(`/api/sessions/${id}`),
        fetchJson(`/api/sessions/${id}/stats?by=${by}&sort=${sort}`),
        fetchJson(`/api/sessions/${id}/steps`),
      ]);
      const session = detail.session;
      running = session.state === "running";
      context.main.replaceChildren(
        el("h1", {}, `Session ${session.id}`, el("span", { class: `state state-${session.state}` }, session.state)),
        facts(session), picker, timeline.element, statsSection(stats, by, sort, context.query),
        stepsSection(steps) ?? "");
      context.status.textContent = running ? "live: updated every 2 s" : "";
    } catch (error) {
      showError(context.main, error.message);
    }
    if (running) setTimeout(refresh, kRefreshMs);
  };
  refresh();
}
