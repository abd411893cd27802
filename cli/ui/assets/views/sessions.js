// The sessions: one row each (as `optrace sessions --all`), newest first,
// refreshed every second while the page is visible, so that running ones
// count their ops live and new ones appear. A row links to its session.
import { el, fetchJson, formatCount, formatTime, setCrumbs, showError, table } from "../format.js";

const kRefreshMs = 1000;

const kColumns = [
  { title: "ID", numeric: true },
  { title: "PROGRAM" },
  { title: "LABEL" },
  { title: "PID", numeric: true },
  { title: "STATE" },
  { title: "OPS", numeric: true },
  { title: "DROPS", numeric: true },
  { title: "START" },
];

function baseName(path) {
  return path ? path.slice(path.lastIndexOf("/") + 1) : "-";
}

function row(session) {
  const href = `/session/${session.id}`;
  return [
    el("a", { href }, String(session.id)),
    el("a", { href, title: session.command_line }, baseName(session.executable)),
    session.label || "",
    String(session.pid),
    el("span", { class: `state state-${session.state}` }, session.state),
    formatCount(session.spans),
    el("span", { class: session.drops.total > 0 ? "drops" : "" }, formatCount(session.drops.total)),
    formatTime(session.start_unix_ns),
  ];
}

function render(main, sessions) {
  if (sessions.length === 0) {
    main.replaceChildren(el("p", { class: "note" },
      "no sessions yet: run a traced program, e.g. optrace run -- optrace-demo"));
    return;
  }
  const listing = table(kColumns, sessions.map(row), { id: "sessions", class: "listing" });
  sessions.forEach((s, i) => listing.tBodies[0].rows[i].setAttribute("data-session-id", s.id));
  const running = sessions.filter((s) => s.state === "running").length;
  main.replaceChildren(
    el("h1", {}, "Sessions"),
    el("p", { class: "note" }, `${sessions.length} sessions, ${running} running; updated every second`),
    listing);
}

export function sessionsView(context) {
  setCrumbs(context, [{ text: "sessions" }]);
  const refresh = async () => {
    if (!document.hidden) {
      try {
        const answer = await fetchJson("/api/sessions?all=1");
        render(context.main, answer.sessions.slice().sort((a, b) => b.id - a.id));
        context.status.textContent = "";
      } catch (error) {
        context.status.textContent = error.message;
        if (!context.main.querySelector("#sessions")) showError(context.main, error.message);
      }
    }
    setTimeout(refresh, kRefreshMs);
  };
  refresh();
}
