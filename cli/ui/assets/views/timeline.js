// The session page's timeline: a canvas with one lane per host thread and
// per device stream, spans nested by depth, the spans narrower than a
// pixel drawn as one shaded pixel each (the daemon sums them: GetTimeline).
// Zoom: the wheel, + and -; pan: drag, the arrow keys; 0: the whole
// session. Each new range asks the server again (after a short pause, so
// that a burst of wheel steps is one request); until it answers, the last
// answer is drawn at the new scale. Hover or click: the span's details.
// "Perfetto trace" downloads the spans of the range shown (GET
// /api/sessions/ID/export, ui/ui_export.h).
// The section exposes what it drew for tests and scripts: data-requests,
// data-from, data-to (Unix ns), data-spans (the answer's spans in its
// range), data-spans-drawn, data-buckets-drawn, data-spans-summed (the
// spans in the buckets drawn), data-lanes and data-state ("loading";
// "moving": a new range drawn from the last answer, its request to come;
// "ready"; "error").
import { el, fetchJson, formatCount, formatDuration } from "../format.js";

const kLabelWidth = 150;
const kAxisHeight = 22;
const kRowHeight = 16;
const kLaneGap = 8;
const kZoomStep = 1.25;
const kPanShare = 0.1;
const kRefetchMs = 120;
// Unix ns are doubles here (exact to ~256 ns): no range below a microsecond.
const kMinRangeNs = 1000;

// A stable colour per name.
function colourOf(name, alpha = 1) {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return `hsla(${h % 360}, 55%, 58%, ${alpha})`;
}

// The answer's spans and buckets (arrays in the order of its span_fields
// and bucket_fields) as objects with those keys.
function unpack(data) {
  const objects = (fields, rows) => rows.map((row) =>
    Object.fromEntries(fields.map((field, i) => [field, row[i]])));
  for (const lane of data.lanes) {
    lane.spans = objects(data.span_fields, lane.spans);
    lane.buckets = objects(data.bucket_fields, lane.buckets);
  }
  return data;
}

function laneTitle(lane) {
  if (lane.thread !== 0) return `thread ${lane.thread}`;
  return `${lane.device.name} stream ${lane.device.stream}`;
}

// A tick step of 1, 2 or 5 times a power of ten that gives ~8 ticks.
function tickStep(rangeNs) {
  const rough = rangeNs / 8;
  const power = 10 ** Math.floor(Math.log10(rough));
  for (const m of [1, 2, 5, 10]) {
    if (m * power >= rough) return m * power;
  }
  return 10 * power;
}

export class Timeline {
  constructor(sessionId) {
    this.sessionId = sessionId;
    this.data = null;       // the last answer
    this.view = null;       // {from, to}: the range shown; null until the first answer
    this.requests = 0;
    this.sequence = 0;      // answers to older requests are dropped
    this.timer = null;
    this.hits = [];         // what was drawn where, for hover and click
    this.pinned = null;     // the clicked item
    this.canvas = el("canvas", { id: "timeline-canvas", tabindex: "0", class: "timeline-canvas" });
    this.range = el("span", { class: "note" });
    this.details = el("div", { id: "timeline-details", class: "timeline-details note" },
      "Hover or click a span for its details.");
    // The native Perfetto trace of the range shown (its href follows the view).
    this.download = el("a", {
      id: "timeline-export", class: "download", download: `session-${sessionId}.pftrace`,
      title: "the spans of the range shown as a Perfetto trace (open it in ui.perfetto.dev)",
    }, "Perfetto trace ↓");
    this.element = el("section", { id: "timeline", "data-state": "loading", "data-requests": "0" },
      el("div", { class: "section-head" }, el("h2", {}, "Timeline"), this.range,
        el("span", { class: "note" }, "zoom: wheel, + −; pan: drag, ← →; 0: whole session"),
        this.download),
      this.canvas, this.details);
    this.listen();
  }

  // The pixels of the plot (canvas less the label column).
  plotWidth() {
    const css = this.canvas.clientWidth || 900;
    return Math.max(1, Math.min(8192, Math.round(css - kLabelWidth)));
  }

  // Asks for `view` (null: the whole session) now.
  async load(view) {
    const sequence = ++this.sequence;
    this.requests++;
    this.element.dataset.requests = String(this.requests);
    this.element.dataset.state = "loading";
    const range = view ? `from=${view.from}&to=${view.to}&` : "";
    try {
      const data = await fetchJson(
        `/api/sessions/${this.sessionId}/timeline?${range}width=${this.plotWidth()}`);
      if (sequence !== this.sequence) return;
      this.data = unpack(data);
      this.view = { from: data.start_unix_ns, to: data.end_unix_ns };
      this.element.dataset.state = "ready";
      this.draw();
    } catch (error) {
      if (sequence !== this.sequence) return;
      this.element.dataset.state = "error";
      this.details.replaceChildren(el("p", { class: "error" }, error.message));
    }
  }

  // Shows `view` at once with the data at hand, and asks for it shortly.
  moveTo(from, to) {
    if (!this.data) return;
    const lo = this.data.session_start_unix_ns;
    const hi = Math.max(this.data.session_end_unix_ns, lo + kMinRangeNs);
    const span = Math.min(Math.max(to - from, kMinRangeNs), hi - lo);
    from = Math.min(Math.max(from, lo), hi - span);
    this.view = { from: Math.round(from), to: Math.round(from + span) };
    this.draw();
    // An answer in flight is for a range no longer asked for.
    this.sequence++;
    this.element.dataset.state = "moving";
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.load(this.view), kRefetchMs);
  }

  zoom(factor, atPlotX) {
    if (!this.view) return;
    const { from, to } = this.view;
    const at = from + (to - from) * (atPlotX / this.plotWidth());
    this.moveTo(at - (at - from) * factor, at + (to - at) * factor);
  }

  pan(shareOfRange) {
    if (!this.view) return;
    const shift = (this.view.to - this.view.from) * shareOfRange;
    this.moveTo(this.view.from + shift, this.view.to + shift);
  }

  listen() {
    const plotX = (event) => event.offsetX - kLabelWidth;
    this.canvas.addEventListener("wheel", (event) => {
      event.preventDefault();
      this.zoom(event.deltaY < 0 ? 1 / kZoomStep : kZoomStep, Math.max(0, plotX(event)));
    }, { passive: false });
    this.canvas.addEventListener("keydown", (event) => {
      const keys = {
        "+": () => this.zoom(1 / kZoomStep, this.plotWidth() / 2),
        "=": () => this.zoom(1 / kZoomStep, this.plotWidth() / 2),
        "-": () => this.zoom(kZoomStep, this.plotWidth() / 2),
        ArrowLeft: () => this.pan(-kPanShare),
        ArrowRight: () => this.pan(kPanShare),
        0: () => { clearTimeout(this.timer); this.load(null); },
      };
      const action = keys[event.key];
      if (action) {
        event.preventDefault();
        action();
      }
    });
    let drag = null;
    this.canvas.addEventListener("mousedown", (event) => {
      if (this.view) drag = { x: event.clientX, view: { ...this.view }, moved: false };
    });
    window.addEventListener("mouseup", () => { drag = null; });
    this.canvas.addEventListener("mousemove", (event) => {
      if (drag && event.buttons === 1) {
        const dx = event.clientX - drag.x;
        if (Math.abs(dx) > 2) drag.moved = true;
        if (drag.moved) {
          const nsPerPx = (drag.view.to - drag.view.from) / this.plotWidth();
          this.moveTo(drag.view.from - dx * nsPerPx, drag.view.to - dx * nsPerPx);
        }
        return;
      }
      if (!this.pinned) this.show(this.hitAt(event.offsetX, event.offsetY));
    });
    this.canvas.addEventListener("click", (event) => {
      if (drag && drag.moved) return;
      this.pinned = this.hitAt(event.offsetX, event.offsetY);
      this.show(this.pinned);
    });
    window.addEventListener("resize", () => this.view && this.moveTo(this.view.from, this.view.to));
  }

  hitAt(x, y) {
    for (let i = this.hits.length - 1; i >= 0; i--) {
      const h = this.hits[i];
      if (x >= h.x && x < h.x + Math.max(h.w, 2) && y >= h.y && y < h.y + h.h) return h;
    }
    return null;
  }

  // The details of a drawn span or pixel summary.
  show(hit) {
    if (!hit) {
      this.details.replaceChildren("Hover or click a span for its details.");
      return;
    }
    const s = this.data.strings;
    const start = this.data.session_start_unix_ns;
    let items;
    if (hit.span) {
      const span = hit.span;
      items = [
        ["name", s[span.name]], ["tag", s[span.tag] || "—"],
        ["source", s[span.source_location] || "—"],
        ["start", `+${formatDuration(span.start_unix_ns - start)}`],
        ["duration", formatDuration(span.duration_ns)], ["self", formatDuration(span.self_ns)],
        ["depth", String(span.depth)], ["op", String(span.op_id)],
      ];
      if (span.device_duration_ns !== null) items.push(["on device", formatDuration(span.device_duration_ns)]);
    } else {
      const b = hit.bucket;
      items = [
        ["spans", `${formatCount(b.count)} under a pixel`], ["busy", formatDuration(b.busy_ns)],
        ["mostly", s[b.name] || "—"],
      ];
    }
    items.push(["lane", laneTitle(hit.lane)]);
    this.details.replaceChildren(el("dl", { class: "facts" },
      ...items.flatMap(([k, v]) => [el("dt", {}, k), el("dd", { "data-field": k }, v)])));
  }

  draw() {
    const data = this.data;
    const { from, to } = this.view;
    const plot = this.plotWidth();
    const rows = data.lanes.reduce((n, lane) => n + lane.max_depth + 1, 0);
    const height = kAxisHeight + rows * kRowHeight + data.lanes.length * kLaneGap + 4;
    const ratio = window.devicePixelRatio || 1;
    const cssWidth = plot + kLabelWidth;
    this.canvas.style.height = `${height}px`;
    this.canvas.width = Math.round(cssWidth * ratio);
    this.canvas.height = Math.round(height * ratio);
    const g = this.canvas.getContext("2d");
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.fillStyle = "#ffffff";
    g.fillRect(0, 0, cssWidth, height);
    const xOf = (ns) => kLabelWidth + ((ns - from) / (to - from)) * plot;

    // The axis: ticks from the session's start.
    const step = tickStep(to - from);
    const origin = data.session_start_unix_ns;
    g.font = "11px system-ui, sans-serif";
    g.fillStyle = "#667085";
    g.strokeStyle = "#e4e7ec";
    for (let t = Math.ceil((from - origin) / step) * step; origin + t < to; t += step) {
      const x = xOf(origin + t);
      g.beginPath();
      g.moveTo(x + 0.5, kAxisHeight - 6);
      g.lineTo(x + 0.5, height);
      g.stroke();
      g.fillText(`+${formatDuration(t)}`, x + 3, kAxisHeight - 8);
    }

    this.hits = [];
    let spansDrawn = 0;
    let bucketsDrawn = 0;
    let spansSummed = 0;
    let y = kAxisHeight;
    const dataNsPerPx = (data.end_unix_ns - data.start_unix_ns) / data.width;
    for (const lane of data.lanes) {
      const laneHeight = (lane.max_depth + 1) * kRowHeight;
      g.fillStyle = "#f8f9fb";
      g.fillRect(0, y, kLabelWidth - 4, laneHeight);
      g.fillStyle = "#1d2330";
      g.fillText(laneTitle(lane), 6, y + 12);
      g.save();
      g.beginPath();
      g.rect(kLabelWidth, y, plot, laneHeight);
      g.clip();
      for (const b of lane.buckets) {
        const t0 = data.start_unix_ns + b.pixel * dataNsPerPx;
        const x = xOf(t0);
        const w = Math.max(1, xOf(t0 + dataNsPerPx) - x);
        if (x + w < kLabelWidth || x > kLabelWidth + plot) continue;
        const busy = Math.min(1, b.busy_ns / Math.max(1, dataNsPerPx));
        g.fillStyle = colourOf(data.strings[b.name], 0.35 + 0.65 * busy);
        const by = y + b.depth * kRowHeight;
        g.fillRect(x, by, w, kRowHeight - 1);
        this.hits.push({ x, y: by, w, h: kRowHeight - 1, bucket: b, lane });
        bucketsDrawn++;
        spansSummed += b.count;
      }
      for (const span of lane.spans) {
        const x0 = xOf(span.start_unix_ns);
        const x1 = xOf(span.start_unix_ns + span.duration_ns);
        if (x1 < kLabelWidth || x0 > kLabelWidth + plot) continue;
        const x = Math.max(x0, kLabelWidth - 1);
        const w = Math.max(1, Math.min(x1, kLabelWidth + plot + 1) - x);
        const sy = y + span.depth * kRowHeight;
        const name = data.strings[span.name];
        g.fillStyle = colourOf(name);
        g.fillRect(x, sy, w, kRowHeight - 1);
        if (w > 40) {
          g.fillStyle = "#1d2330";
          g.fillText(name, x + 3, sy + 11, w - 6);
        }
        this.hits.push({ x, y: sy, w, h: kRowHeight - 1, span, lane });
        spansDrawn++;
      }
      g.restore();
      y += laneHeight + kLaneGap;
    }
    if (data.lanes.length === 0) {
      g.fillStyle = "#667085";
      g.fillText("no spans stored", kLabelWidth, kAxisHeight + 14);
    }

    // User timing: when the first view was drawn, for benchmarks
    // (performance.getEntriesByName).
    if (!this.drawnOnce) {
      this.drawnOnce = true;
      performance.mark("optrace:timeline-first-draw");
    }
    const ds = this.element.dataset;
    ds.from = String(from);
    ds.to = String(to);
    ds.spansDrawn = String(spansDrawn);
    ds.bucketsDrawn = String(bucketsDrawn);
    ds.spansSummed = String(spansSummed);
    ds.spans = String(data.spans);
    ds.lanes = String(data.lanes.length);
    this.download.href = `/api/sessions/${this.sessionId}/export?format=perfetto` +
      `&from=${Math.floor(from)}&to=${Math.ceil(to)}`;
    this.range.textContent =
      `+${formatDuration(from - origin)} to +${formatDuration(to - origin)} ` +
      `(${formatDuration(to - from)} of ${formatDuration(data.session_end_unix_ns - origin)}); ` +
      `${formatCount(data.spans)} spans` +
      (data.spans_left_out ? `, ${formatCount(data.spans_left_out)} left out` : "");
  }
}
