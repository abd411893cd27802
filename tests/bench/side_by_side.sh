#!/usr/bin/env bash
# Cost per traced op (LAUNCH + COMPLETE with name, id, target and device)
# of optrace beside what users would pick instead, in one run on this
# machine; prints the markdown tables of docs/BENCHMARKS.md ("Side by side").
#   tests/bench/side_by_side.sh [build dir]
# Builds what it runs (bench_side_by_side, optraced) in the build folder
# (default build/), configuring a Release build with -Werror there first
# when the folder has none, so it runs from a clean checkout.
# Rows: optrace with a real optraced draining, and filtered out by the live
# level; fprintf(stderr) of the "[OP] ..." lines to /dev/null and to a file;
# spdlog's async logger to a file; LTTng-UST tracepoints with a live
# userspace session recording, and with none; the hand-written floor ring.
# Every configuration runs as its own process (bench_side_by_side), REPS
# times, interleaved round by round so that a burst of load from elsewhere
# hits every row alike. Two passes: producers paced at RATE pairs a second
# per thread (the consumers keep up: the cost of recording every op), then
# back to back (the consumers are the bound: what each tool loses).
# It starts its own optraced and lttng-sessiond (or uses a session daemon
# that already answers, as root's system one would) and stops what it
# started. Rows whose library or tools are missing, or whose session daemon
# cannot start, are skipped, and the script says why.
# Environment: REPS (7), THREADS ("1 2"), RATES ("250000 0": pairs/s per
# producer thread, 0 = back to back), SECONDS_PER_REP (0.3), WARMUP (0.2),
# RING (optrace ring capacity in events; 65536, as the floor ring's).
set -euo pipefail
build=${1:-build}
reps=${REPS:-7}
thread_counts=${THREADS:-"1 2"}
rates=${RATES:-"250000 0"}
seconds=${SECONDS_PER_REP:-0.3}
warmup=${WARMUP:-0.2}
ring=${RING:-65536}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
bench="$build/tests/bench/bench_side_by_side"
optraced="$build/daemon/optraced"
for t in cmake python3 sqlite3; do
  command -v $t >/dev/null || { echo "side_by_side: needs $t (deploy/install-deps.sh)" >&2; exit 1; }
done

# ---- build -------------------------------------------------------------------
. "$here/bench_scratch.sh"
bench_build "$build" bench_side_by_side optraced
bench_scratch sbs

notes="$tmp/notes.txt"         # rows that cannot run, and why
results="$tmp/results.tsv"     # rate row threads round ns_per_pair dropped pairs pairs_per_s
sessions="$tmp/lttng.tsv"      # rate threads round events_issued events_in_trace
done_lines="$tmp/done.tsv"     # rate row, then the program's "done ..." line
stored="$tmp/stored.tsv"       # rate sessions spans dropped, as optraced stored them
: >"$notes"; : >"$results"; : >"$sessions"; : >"$done_lines"; : >"$stored"

# ---- which rows can run ------------------------------------------------------
declare -A built=()
while read -r mode state rest; do
  if [ "$state" = available ]; then built[$mode]=1; else echo "$mode: ${rest}" >>"$notes"; fi
done < <("$bench" --list)

if [ -n "${built[lttng]:-}" ]; then lttng_start_sessiond "$notes"; fi

# ---- optraced: its own database, socket and namespace, one per pass ----------
stop_daemon() {  # stop_daemon <rate>: after the sessions' ends are committed
  sleep 1
  kill "$daemon"; wait "$daemon" 2>/dev/null || true
  daemon=""
  printf '%s\t%s\n' "$1" "$(sqlite3 -separator $'\t' "$tmp/ops.db" \
    "SELECT count(*), coalesce(sum(spans), 0), coalesce(sum(dropped_ring_full + dropped_no_ring
            + dropped_shed + dropped_daemon_restart + dropped_invalid), 0)
     FROM sessions WHERE spans > 0")" >>"$stored"
}

# ---- one configuration, one process ------------------------------------------
# run <rate> <row> <threads> <round> <mode> [where the program's stderr goes]
last_done=""
run() {
  local rate=$1 row=$2 threads=$3 round=$4 mode=$5 errout=${6:-"$tmp/stderr.txt"}
  local out
  if ! out=$("$bench" --mode "$mode" --threads "$threads" --rate "$rate" --reps 1 \
               --seconds "$seconds" --warmup-seconds "$warmup" --log-file "$tmp/spdlog.log" \
               2>"$errout"); then
    echo "side_by_side: $row ($threads threads) failed: $out" >&2
    [ "$errout" = "$tmp/stderr.txt" ] && cat "$errout" >&2
    exit 1
  fi
  echo "$out" | awk -v rate="$rate" -v row="$row" -v round="$round" '
    /^rep=/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
              printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", rate, row, v["threads"], round,
                     v["ns_per_pair"], v["dropped"], v["pairs"], v["pairs_per_s"] }' >>"$results"
  last_done=$(echo "$out" | grep '^done')
  printf '%s\t%s\t%s\n' "$rate" "$row" "$last_done" >>"$done_lines"
  rm -f "$tmp/spdlog.log" "$tmp/stderr.log"
}
field() { echo "$last_done" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# One live-session run: a fresh session recording optrace_bench:* in the
# default channel (per-user buffers, 4 x 512 KiB sub-buffers per CPU,
# discard mode), the program, then what the session lost: the events
# babeltrace2 finds in the trace against the events the program issued.
# (The count that `lttng stop` warns about is not used: LTTng 2.13 printed
# sums with bit 63 set here, while the trace's count was exact.)
lttng_live() {  # lttng_live <rate> <threads> <round>
  local rate=$1 threads=$2 round=$3 s="sbs$$-$1-$2-$3"
  local trace="$tmp/trace/$s"
  lttng create "$s" --output="$trace" >/dev/null
  lttng enable-event --userspace --session="$s" 'optrace_bench:*' >/dev/null
  lttng start "$s" >/dev/null
  run "$rate" lttng-live "$threads" "$round" lttng
  [ "$(field enabled)" = 1 ] || { echo "side_by_side: LTTng tracepoint not enabled by the session" >&2; exit 1; }
  lttng stop "$s" >/dev/null 2>&1
  lttng destroy "$s" >/dev/null
  printf '%s\t%s\t%s\t%s\t%s\n' "$rate" "$threads" "$round" $(( $(field pairs_total) * 2 )) \
    "$(count_events "$trace")" >>"$sessions"
  rm -rf "$trace"
}

echo "side_by_side: rates (pairs/s per thread, 0 = back to back): $rates; $reps rounds of" \
     "${seconds}s per row after ${warmup}s warm-up; threads: $thread_counts;" \
     "load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for rate in $rates; do
  bench_start_daemon
  for round in $(seq "$reps"); do
    for threads in $thread_counts; do
      OPTRACE_RING_CAPACITY=$ring run "$rate" optrace-enabled "$threads" "$round" optrace-enabled
      OPTRACE_RING_CAPACITY=$ring run "$rate" optrace-disabled "$threads" "$round" optrace-disabled
      run "$rate" floor "$threads" "$round" floor
      if [ -n "$lttng_ok" ]; then
        lttng_live "$rate" "$threads" "$round"
        run "$rate" lttng-off "$threads" "$round" lttng
        [ "$(field enabled)" = 0 ] || { echo "side_by_side: LTTng tracepoint enabled without a session" >&2; exit 1; }
      fi
      if [ -n "${built[spdlog-async]:-}" ]; then
        run "$rate" spdlog-file "$threads" "$round" spdlog-async
      fi
      run "$rate" stderr-devnull "$threads" "$round" stderr /dev/null
      run "$rate" stderr-file "$threads" "$round" stderr "$tmp/stderr.log"
    done
    echo "side_by_side: rate $rate: round $round of $reps done" >&2
  done
  stop_daemon "$rate"
done

python3 "$here/side_by_side_table.py" "$results" "$sessions" "$done_lines" "$stored" "$notes"
echo
echo "Machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1);" \
     "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
