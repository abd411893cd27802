#!/usr/bin/env bash
# The start-up burst: a short-lived process records N op pairs per thread
# from its first instruction and exits, through optrace (a real optraced
# running, started before) and through LTTng-UST (a live session
# recording, default channel, discard mode), in one run on this machine;
# prints the markdown table of docs/BENCHMARKS.md ("Start-up burst").
#   tests/bench/burst.sh [build dir]
# Builds what it runs (bench_burst_producer, optraced) in the build folder.
# For each pace (back to back, or paced pairs/s per thread) and thread
# count, the tracers alternate, REPS rounds; each run is a fresh process.
# "Stored" is each tracer's own record of what it kept: the events of the
# process's session in optraced's database (once its end is committed),
# the events babeltrace2 counts in LTTng's trace. "Events/s stored" divides
# that by the process's run time (main's first line to its last pair).
# Environment: REPS (5), PAIRS (1000000 per thread), RATES ("0 500000
# 2000000": pairs/s per thread, 0 = back to back), THREADS ("1 2"), RING
# (optrace ring capacity in events; unset: the library's default), TRACERS
# (which to run, of: optrace, optrace-lossless (OPTRACE_FULL_RING=wait),
# lttng (default channel, discard mode), lttng-blocking (a channel with
# --blocking-timeout=inf and LTTNG_UST_ALLOW_BLOCKING=1); default
# "optrace lttng").
set -euo pipefail
build=${1:-build}
reps=${REPS:-5}
pairs=${PAIRS:-1000000}
rates=${RATES:-"0 500000 2000000"}
thread_counts=${THREADS:-"1 2"}
tracers=${TRACERS:-"optrace lttng"}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
producer="$build/tests/bench/bench_burst_producer"
optraced="$build/daemon/optraced"
for t in cmake sqlite3 /usr/bin/python3; do
  command -v $t >/dev/null || { echo "burst: needs $t (deploy/install-deps.sh)" >&2; exit 1; }
done

. "$here/bench_scratch.sh"
bench_build "$build" bench_burst_producer optraced
bench_scratch burst
notes="$tmp/notes.txt"
results="$tmp/results.tsv"  # tracer rate threads round issued_events stored_events seconds dropped
: >"$notes"; : >"$results"

if "$producer" --list | grep -q '^lttng available'; then
  lttng_start_sessiond "$notes"
else
  echo "lttng: skipped: $("$producer" --list | grep '^lttng')" >>"$notes"
fi

bench_start_daemon

field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# run_optrace <tracer> <rate> <threads> <round>
run_optrace() {
  local tracer=$1 out pid stored="" full_ring=drop
  shift
  [ "$tracer" = optrace-lossless ] && full_ring=wait
  [ -n "${RING:-}" ] && export OPTRACE_RING_CAPACITY=$RING
  OPTRACE_LEVEL=trace OPTRACE_FULL_RING=$full_ring \
    "$producer" --mode optrace --threads "$2" --pairs "$pairs" --rate "$1" \
    >"$tmp/out.txt" 2>"$tmp/err.txt" &
  pid=$!
  wait $pid || { cat "$tmp/err.txt" >&2; exit 1; }
  out=$(grep '^done' "$tmp/out.txt")
  for _ in $(seq 600); do
    stored=$(sqlite3 "$tmp/ops.db" \
      "SELECT events FROM sessions WHERE pid = $pid AND state != 'running'" 2>/dev/null || true)
    [ -n "$stored" ] && break
    sleep 0.05
  done
  [ -n "$stored" ] || { echo "burst: session of pid $pid never ended" >&2; exit 1; }
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tracer" "$1" "$2" "$3" \
    $(( $(field "$out" pairs_total) * 2 )) "$stored" "$(field "$out" seconds)" \
    "$(field "$out" dropped)" >>"$results"
}

# run_lttng <tracer> <rate> <threads> <round>
run_lttng() {
  local tracer=$1 out
  shift
  local s="burst$$-$1-$2-$3" channel=() allow=0
  local trace="$tmp/trace/$s"
  lttng create "$s" --output="$trace" >/dev/null
  if [ "$tracer" = lttng-blocking ]; then
    lttng enable-channel --userspace --session="$s" --blocking-timeout=inf blocking >/dev/null
    channel=(--channel=blocking)
    allow=1
  fi
  lttng enable-event --userspace --session="$s" "${channel[@]}" 'optrace_bench:*' >/dev/null
  lttng start "$s" >/dev/null
  out=$(LTTNG_UST_ALLOW_BLOCKING=$allow \
    "$producer" --mode lttng --threads "$2" --pairs "$pairs" --rate "$1")
  lttng stop "$s" >/dev/null 2>&1
  lttng destroy "$s" >/dev/null
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t0\n' "$tracer" "$1" "$2" "$3" \
    $(( $(field "$out" pairs_total) * 2 )) "$(count_events "$trace")" \
    "$(field "$out" seconds)" >>"$results"
  rm -rf "$trace"
}

echo "burst: $pairs pairs per thread; paces (pairs/s per thread, 0 = back to back): $rates;" \
     "threads: $thread_counts; $reps rounds; load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for rate in $rates; do
  for threads in $thread_counts; do
    for round in $(seq "$reps"); do
      for tracer in $tracers; do
        case $tracer in
          optrace | optrace-lossless) run_optrace "$tracer" "$rate" "$threads" "$round" ;;
          lttng | lttng-blocking) [ -n "$lttng_ok" ] && run_lttng "$tracer" "$rate" "$threads" "$round" ;;
          *) echo "burst: unknown tracer $tracer in TRACERS" >&2; exit 2 ;;
        esac
      done
    done
    echo "burst: pace $rate, $threads threads done" >&2
  done
done

/usr/bin/python3 - "$results" "$notes" "$pairs" <<'PY'
import sys
from collections import defaultdict
results, notes, pairs = sys.argv[1], sys.argv[2], int(sys.argv[3])
def median(v):
    v = sorted(v); n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
runs = defaultdict(list)
order = []
for line in open(results):
    tracer, rate, threads, rnd, issued, stored, seconds, dropped = line.split("\t")
    key = (int(rate), int(threads))
    if key not in order: order.append(key)
    runs[(tracer,) + key].append((int(issued), int(stored), float(seconds), int(dropped)))
print(f"| producer ({pairs:,} pairs per thread) | threads | tracer | stored"
      " | events/s stored | run time |")
print("| --- | ---: | --- | ---: | ---: | ---: |")
tracers = []
for tracer, *_ in runs:
    if tracer not in tracers: tracers.append(tracer)
for key in order:
    rate, threads = key
    pace = "back to back" if rate == 0 else f"paced {rate:,} pairs/s"
    for tracer in tracers:
        r = runs.get((tracer,) + key)
        if not r: continue
        share = median([s / i for i, s, _, _ in r])
        lo, hi = min(s / i for i, s, _, _ in r), max(s / i for i, s, _, _ in r)
        rate_stored = median([s / t for _, s, t, _ in r])
        secs = median([t for _, _, t, _ in r])
        print(f"| {pace} | {threads} | {tracer} | {100 * share:.1f}% ({100 * lo:.1f}-{100 * hi:.1f})"
              f" | {rate_stored / 1e6:.2f} M | {secs * 1e3:.0f} ms |")
print()
print("Stored: median share of the events issued (min-max over the rounds); events/s stored:"
      " stored events over the process's run time; medians.")
for line in open(notes):
    print(f"* {line.strip()}")
PY
echo
echo "Machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1);" \
     "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
