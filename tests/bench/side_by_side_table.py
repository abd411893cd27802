#!/usr/bin/env python3
"""Turns side_by_side.sh's measurements into the tables of docs/BENCHMARKS.md
("Side by side"): for each pace, configuration and thread count, the median
cost per op pair over the rounds with min and max, the ratio to optrace
enabled, what each configuration lost, and the issue's targets checked
against the same run.

usage: side_by_side_table.py RESULTS LTTNG_SESSIONS DONE STORED NOTES
  RESULTS         rate row threads round ns_per_pair dropped_events pairs pairs_per_s
  LTTNG_SESSIONS  rate threads round events_issued events_in_trace
  DONE            rate row, then bench_side_by_side's "done ..." line
  STORED          rate sessions spans dropped_events, as optraced stored them
  NOTES           one line per row that could not run, and why
(all TSV; rate is pairs/s per producer thread, 0 = back to back)
"""
import sys
from collections import defaultdict

ROWS = [
    ("optrace-enabled", "optrace, enabled (optraced draining)"),
    ("optrace-disabled", "optrace, filtered out by the live level"),
    ("floor", "floor: hand-written shared-memory ring"),
    ("lttng-live", "LTTng-UST tracepoints, live session recording"),
    ("lttng-off", "LTTng-UST tracepoints, no session (disabled)"),
    ("spdlog-file", "spdlog async logger, to a file"),
    ("stderr-devnull", "fprintf(stderr) op log, to /dev/null"),
    ("stderr-file", "fprintf(stderr) op log, to a file"),
]


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def fmt_ns(x):
    return f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 1000 else f"{x:.0f}"


def fmt_ratio(x):
    return f"{x:.3f}x" if x < 0.1 else f"{x:.2f}x" if x < 10 else f"{x:.1f}x"


def fmt_pct(x):
    return "0" if x == 0 else f"{100 * x:.3f}%" if x < 0.001 else f"{100 * x:.1f}%"


def read_tsv(path):
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def pace_title(rate):
    if rate == 0:
        return "Back to back (each producer thread as fast as it can)"
    return f"Paced at {rate:,} op pairs/s per producer thread"


def print_pass(rate, ns, lost, pace, sessions, done, stored):
    thread_counts = sorted({t for (r, _, t) in ns if r == rate})

    def med(row, t):
        v = ns.get((rate, row, t))
        return median(v) if v else None

    def note_cell(row, t):
        notes = []
        if row == "lttng-live" and sessions.get((rate, t)):
            s = sessions[(rate, t)]
            fractions = [(i - k) / max(i, 1) for i, k in s]
            notes.append(f"lost events in {sum(1 for f in fractions if f > 0)}/{len(s)} "
                         f"sessions, worst {fmt_pct(max(fractions))}")
        if row in ("optrace-enabled", "floor") and lost.get((rate, row, t)):
            v = lost[(rate, row, t)]
            notes.append(f"dropped median {fmt_pct(median(v))}, worst {fmt_pct(max(v))}")
        p = pace.get((rate, row, t))
        if rate > 0 and p and median(p) < 0.95 * rate:
            notes.append(f"kept only {median(p):,.0f} pairs/s")
        return ", ".join(notes)

    print(f"### {pace_title(rate)}")
    print()
    header, rule = "| configuration |", "| --- |"
    for t in thread_counts:
        word = "thread" if t == 1 else "threads"
        header += f" {t} {word}: median ns/pair | min–max | vs optrace |"
        rule += " ---: | ---: | ---: |"
    print(header + " losses, pace |")
    print(rule + " --- |")
    for row, label in ROWS:
        if not any(ns.get((rate, row, t)) for t in thread_counts):
            continue
        line = f"| {label} |"
        for t in thread_counts:
            m, base = med(row, t), med("optrace-enabled", t)
            if m is None:
                line += " - | - | - |"
                continue
            v = ns[(rate, row, t)]
            ratio = fmt_ratio(m / base) if base else "-"
            line += f" {fmt_ns(m)} | {fmt_ns(min(v))}–{fmt_ns(max(v))} | {ratio} |"
        cells = [f"{t}T: {c}" for t in thread_counts if (c := note_cell(row, t))]
        print(line + " " + "; ".join(cells) + " |")

    rounds = max((len(v) for k, v in ns.items() if k[0] == rate), default=0)
    print()
    print(f"Medians over {rounds} rounds. ns/pair: one producer thread's time inside "
          "its batches of pairs over its pairs; \"vs optrace\": each median over "
          "optrace enabled's, same thread count.")
    print()
    print("Targets (issue 8), from these medians:")
    for t in thread_counts:
        e = med("optrace-enabled", t)
        if e is None:
            continue
        parts = []
        for name, value, target, ok in (
            ("enabled / floor", med("floor", t), "<= 1.3x", lambda x: x <= 1.3),
            ("LTTng live / enabled", med("lttng-live", t), ">= 10x", lambda x: x >= 10),
            ("fprintf /dev/null / enabled", med("stderr-devnull", t), ">= 30x",
             lambda x: x >= 30),
        ):
            if value is None:
                continue
            x = e / value if name.startswith("enabled") else value / e
            parts.append(f"{name} {x:.2f}x (target {target}): {'met' if ok(x) else 'NOT met'}")
        d, ld = med("optrace-disabled", t), med("lttng-off", t)
        if d is not None and ld is not None:
            parts.append(f"disabled {d:.2f} ns vs LTTng disabled {ld:.2f} ns (target <=): "
                         f"{'met' if d <= ld else 'NOT met'}")
        dropped = lost.get((rate, "optrace-enabled", t))
        if dropped and median(dropped) > 0:
            parts.append(f"not a fair comparison: optrace dropped a median "
                         f"{fmt_pct(median(dropped))} of its events (ring full), and a "
                         f"dropped pair costs less than a recorded one")
        print(f"* {t} thread{'s' if t > 1 else ''}: " + "; ".join(parts))

    for t in thread_counts:
        s = sessions.get((rate, t))
        if not s:
            continue
        issued = sum(i for i, _ in s)
        found = sum(k for _, k in s)
        print(f"* LTTng live, {t} thread{'s' if t > 1 else ''}: {len(s)} sessions, {issued} "
              f"events issued (warm-up included), {found} in the traces per babeltrace2, "
              f"{issued - found} lost")
    recorded = sum(int(kv.get("recorded_total", 0)) for r, row, kv in done
                   if r == rate and row == "optrace-enabled")
    if rate in stored:
        n, spans, dropped = stored[rate]
        print(f"* optraced stored {spans} spans in {n} sessions ({dropped} events dropped, all "
              f"causes) of {recorded} op pairs issued at level trace (warm-up included)")
    print()


def main(results_path, sessions_path, done_path, stored_path, notes_path):
    ns = defaultdict(list)     # (rate, row, threads) -> ns per pair, one per round
    lost = defaultdict(list)   # (rate, row, threads) -> fraction of events dropped
    pace = defaultdict(list)   # (rate, row, threads) -> pairs/s reached per thread
    for rate, row, threads, _round, ns_pair, dropped, pairs, per_s in read_tsv(results_path):
        key = (int(rate), row, int(threads))
        ns[key].append(float(ns_pair))
        lost[key].append(int(dropped) / max(2 * int(pairs), 1))
        pace[key].append(float(per_s))
    sessions = defaultdict(list)  # (rate, threads) -> (issued, in trace)
    for rate, threads, _round, issued, found in read_tsv(sessions_path):
        sessions[(int(rate), int(threads))].append((int(issued), int(found)))
    done = []
    for rate, row, line in read_tsv(done_path):
        done.append((int(rate), row, dict(p.split("=", 1) for p in line.split() if "=" in p)))
    stored = {int(r): (n, spans, dropped) for r, n, spans, dropped in read_tsv(stored_path)}

    rates = []
    for rate, _, _ in ns:
        if rate not in rates:
            rates.append(rate)
    for rate in sorted(rates, key=lambda r: (r == 0, r)):
        print_pass(rate, ns, lost, pace, sessions, done, stored)

    with open(notes_path) as f:
        for note in (line.strip() for line in f):
            if note:
                print(f"* missing row: {note}")


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    main(*sys.argv[1:])
