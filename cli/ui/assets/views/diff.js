// Two sessions compared, as `optrace diff A B` shows them (/api/diff/A/B):
// when B has fused ops, the fusion map first (each fused op of B beside
// the parts of A it replaced), then the per-op table of the rest (every
// op when there is no fusion), the biggest change in total time first.
// Each row's bars are A's and B's totals on one scale. ?by=name|tag as
// the CLI's --by. comparePicker is the session page's way here.
import {
  el, fetchJson, formatCount, formatDuration, setCrumbs, shareBar, showError, table,
} from "../format.js";

const kGroupings = ["name", "tag"];

// "+1.20 ms" / "-3.4 µs", as the CLI's CHANGE column.
function formatChange(ns) {
  if (ns === 0) return formatDuration(0);
  return (ns < 0 ? "-" : "+") + formatDuration(Math.abs(ns));
}

// "1.23x", with the CLI's decimals.
function formatRatio(ratio) {
  if (!Number.isFinite(ratio)) return "-";
  return `${ratio.toFixed(ratio >= 100 ? 0 : ratio >= 10 ? 1 : ratio >= 1 ? 2 : 3)}x`;
}

function changeCell(ns) {
  return el("span", { class: ns > 0 ? "change-up" : ns < 0 ? "change-down" : undefined },
    formatChange(ns));
}

// A's total (grey) over B's (blue), each a share of `most`.
function pairBars(aNs, bNs, most) {
  const scale = most > 0 ? most : 1;
  return el("span", { class: "bars", title: `A ${formatDuration(aNs)}, B ${formatDuration(bNs)}` },
    shareBar(aNs / scale, "abar"), shareBar(bNs / scale, "bbar"));
}

// A side without spans has no total, not a total of zero.
function total(count, ns) {
  return count === 0 ? "-" : formatDuration(ns);
}

const kColumns = (first) => [
  { title: first }, { title: "COUNT A", numeric: true }, { title: "COUNT B", numeric: true },
  { title: "TOTAL A", numeric: true }, { title: "TOTAL B", numeric: true },
  { title: "CHANGE", numeric: true }, { title: "B/A", numeric: true },
];

function fusionSection(diff) {
  const most = Math.max(1, ...diff.fusions.flatMap((f) => [f.group_total_a_ns, f.group_total_b_ns]));
  const rows = [];
  const attrs = [];
  for (const f of diff.fusions) {
    rows.push([el("strong", { class: "key" }, f.name || "-"), formatCount(f.group_count_a),
      formatCount(f.group_count_b), total(f.group_count_a, f.group_total_a_ns),
      total(f.group_count_b, f.group_total_b_ns), changeCell(f.total_change_ns),
      f.group_count_a === 0 ? el("span", { class: "drops" }, "not in A") : formatRatio(f.total_ratio),
      formatCount(f.ops_saved), pairBars(f.group_total_a_ns, f.group_total_b_ns, most)]);
    attrs.push({ "data-fusion": f.tag, class: "fusion" });
    rows.push([el("span", { class: "indent note" }, "(fused op)"), formatCount(f.fused_count_a),
      formatCount(f.count_b), total(f.fused_count_a, f.fused_total_a_ns),
      total(f.count_b, f.total_b_ns), "", "", "", ""]);
    attrs.push({ "data-fused-op": f.tag });
    for (const p of f.parts) {
      const flags = [p.empty && "empty part", p.missing_in_a && "missing in A",
        p.repeated && "repeated", p.shared && "shared"].filter(Boolean).join(", ");
      rows.push([el("span", { class: "indent key" }, p.empty ? '""' : p.tag), formatCount(p.count_a),
        formatCount(p.count_b), total(p.count_a, p.total_a_ns), total(p.count_b, p.total_b_ns), "",
        el("span", { class: p.empty || p.missing_in_a ? "drops" : "note" }, flags), "",
        pairBars(p.total_a_ns, p.total_b_ns, most)]);
      attrs.push({ "data-part": p.tag, "data-of": f.tag });
    }
    if (f.parts_not_listed > 0) {
      rows.push([el("span", { class: "indent note" }, `… ${f.parts_not_listed} more parts`),
        "", "", "", "", "", "", "", ""]);
      attrs.push({});
    }
  }
  const columns = [...kColumns("FUSED IN B / PARTS"), { title: "OPS SAVED", numeric: true }, { title: "" }];
  const listing = table(columns, rows, { id: "fusion-map", class: "listing" });
  attrs.forEach((a, i) => {
    for (const [name, value] of Object.entries(a)) listing.tBodies[0].rows[i].setAttribute(name, value);
  });
  return el("section", {}, el("h2", {}, "Fused in B"), listing, el("p", { class: "note" },
    "Each fused op of B beside the ops of A it replaced (its parts), and B's own spans of a part " +
    "that B still runs unfused. Bars: total time of A (grey) and B (blue), on one scale."));
}

function opsSection(diff, by) {
  const fused = diff.fusions.length > 0;
  const source = fused ? diff.unfused_rows : diff.rows;
  const sorted = [...source].sort((x, y) => Math.abs(y.total_change_ns) - Math.abs(x.total_change_ns));
  const most = Math.max(1, ...sorted.flatMap((r) => [r.total_a_ns, r.total_b_ns]));
  const title = fused ? "Ops outside fusions" : "Ops";
  if (sorted.length === 0) {
    return el("section", {}, el("h2", {}, title),
      el("p", { class: "note" }, fused ? "no ops outside fusions" : "neither session has spans"));
  }
  const rows = sorted.map((r) => [
    el("span", { class: "key" }, r.key || "-"), formatCount(r.count_a), formatCount(r.count_b),
    r.only_in_b ? "-" : formatDuration(r.total_a_ns), r.only_in_a ? "-" : formatDuration(r.total_b_ns),
    changeCell(r.total_change_ns),
    r.only_in_a ? el("span", { class: "change-down" }, "only in A")
      : r.only_in_b ? el("span", { class: "drops" }, "only in B") : formatRatio(r.total_ratio),
    pairBars(r.total_a_ns, r.total_b_ns, most),
  ]);
  const listing = table([...kColumns(by.toUpperCase()), { title: "" }], rows,
    { id: "diff-ops", class: "listing" });
  sorted.forEach((r, i) => listing.tBodies[0].rows[i].setAttribute("data-key", r.key));
  const a = diff.total_a_ns;
  const b = diff.total_b_ns;
  return el("section", {}, el("h2", {}, title), listing, el("p", { class: "note" },
    `total: A ${formatDuration(a)}, B ${formatDuration(b)}` +
    (a > 0 ? ` (${formatChange(b - a)}, ${formatRatio(b / a)})` : "") +
    ". Bars: total time of A (grey) and B (blue), on one scale."));
}

function sideLine(name, session) {
  const what = session.label ? `session ${session.id} (${session.label})` : `session ${session.id}`;
  return el("p", { class: "side" }, `${name} = `, el("a", { href: `/session/${session.id}` }, what),
    ` ${session.command_line || session.executable}`);
}

export function diffView(context) {
  const [a, b] = context.params;
  const by = kGroupings.includes(context.query.get("by")) ? context.query.get("by") : "name";
  setCrumbs(context, [{ text: "sessions", href: "/" }, { text: `session ${a}`, href: `/session/${a}` },
    { text: `diff ${a} ${b}` }]);
  const links = kGroupings.map((word) => word === by ? el("strong", {}, word)
    : el("a", { href: `?by=${word}` }, word));
  fetchJson(`/api/diff/${a}/${b}?by=${by}`).then((diff) => {
    context.main.replaceChildren(
      el("h1", {}, `Session ${a} → ${b}`),
      sideLine("A", diff.session_a), sideLine("B", diff.session_b),
      el("div", { class: "section-head" },
        el("span", { class: "choice" }, "by: ", ...links.flatMap((l) => [l, " "])),
        el("a", { href: `/diff/${b}/${a}?by=${by}` }, "swap A and B")),
      diff.fusions.length > 0 ? fusionSection(diff) : "", opsSection(diff, by));
  }).catch((error) => showError(context.main, error.message));
}

// A "compare with" choice of the other sessions, for the session page:
// picking one opens /diff/`id`/OTHER.
export function comparePicker(id) {
  const select = el("select", { id: "compare-with" }, el("option", { value: "" }, "another session…"));
  select.addEventListener("change", () => {
    if (select.value) location.assign(`/diff/${id}/${select.value}`);
  });
  fetchJson("/api/sessions?all=1&limit=200").then((list) => {
    for (const s of list.sessions) {
      if (String(s.id) === String(id)) continue;
      select.append(el("option", { value: s.id },
        `${s.id}${s.label ? ` (${s.label})` : ""} ${s.command_line || s.executable}`.slice(0, 80)));
    }
  }).catch(() => select.replaceChildren(el("option", { value: "" }, "no sessions to compare")));
  return el("label", {}, "compare with ", select);
}
