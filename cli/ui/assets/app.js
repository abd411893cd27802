// The web view's entry: picks the view of the URL's path and runs it.
// The server answers every path below with this same page (cli/ui/ui_pages.cc
// lists them too); a view is a function (context) that fills context.main.
// Each link is a real page load, so the back button and shared URLs work
// without any history handling. A new view is one more line here and one
// in ui_pages.cc.
import { sessionsView } from "./views/sessions.js";
import { sessionView } from "./views/session.js";
import { liveView } from "./views/live.js";
import { diffView } from "./views/diff.js";
import { el } from "./format.js";

const kRoutes = [
  { path: /^\/$/, view: sessionsView },
  { path: /^\/session\/(\d+)$/, view: sessionView },
  { path: /^\/live$/, view: liveView },
  { path: /^\/diff\/(\d+)\/(\d+)$/, view: diffView },
];

function start() {
  const context = {
    main: document.getElementById("view"),
    crumbs: document.getElementById("crumbs"),
    status: document.getElementById("status"),
    query: new URLSearchParams(location.search),
    params: [],
  };
  for (const route of kRoutes) {
    const match = location.pathname.match(route.path);
    if (match) {
      context.params = match.slice(1);
      route.view(context);
      return;
    }
  }
  context.main.replaceChildren(el("p", { class: "error" }, `no view for ${location.pathname}`));
}

start();
