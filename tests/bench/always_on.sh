#!/usr/bin/env bash
# Always on: one long-running producer at trace (optrace-load, 2 threads,
# RATE op pairs/s) for SECONDS into a fresh optraced with a rolling window
# (--keep-last KEEP) under a database cap (--retention-max-bytes CAP).
# Samples the database's size on disk (the file and its -wal) every 5 s
# while it runs, then prints the figures of docs/BENCHMARKS.md ("Always
# on"): the largest sample against the cap, the pairs recorded, the spans
# the session's statistics count (from its aggregates), the spans still
# stored and trimmed, the spans its record counts, the drops, and how much of the session's end the
# stored pages cover.
#   tests/bench/always_on.sh [build dir] [seconds]
# Environment: RATE (300000), KEEP (30s), CAP (64MiB), both as optraced
# takes them.
set -euo pipefail
build=${1:-build}
seconds=${2:-600}
rate=${RATE:-300000}
keep=${KEEP:-30s}
cap=${CAP:-64MiB}

tmp=$(mktemp -d /tmp/optrace-always-on.XXXXXX)
export OPTRACE_NAMESPACE=alwayson$$
export OPTRACE_SOCKET="$tmp/run/optraced.sock"
trap 'kill $daemon $load 2>/dev/null || true; rm -rf "$tmp" /dev/shm/$OPTRACE_NAMESPACE.* 2>/dev/null || true' EXIT

"$build/daemon/optraced" --db "$tmp/ops.db" --socket "$OPTRACE_SOCKET" \
  --retention-max-bytes "$cap" --keep-last "$keep" 2>"$tmp/daemon.log" &
daemon=$!
until grep -q ' ready:' "$tmp/daemon.log"; do sleep 0.05; done

env OPTRACE_LEVEL=trace "$build/tests/bench/optrace-load" --threads 2 --rate "$rate" \
  --seconds "$seconds" >"$tmp/load.out" &
load=$!
db_bytes() { cat "$tmp"/ops.db "$tmp"/ops.db-wal 2>/dev/null | wc -c; }
peak=0
samples=0
while kill -0 $load 2>/dev/null; do
  sleep 5
  size=$(db_bytes)
  samples=$((samples + 1))
  [ "$size" -gt "$peak" ] && peak=$size
  echo "sample $samples: $size bytes" >>"$tmp/samples"
done
wait $load
launches=$(sed 's/.*launches=\([0-9]*\).*/\1/' "$tmp/load.out")
until [ "$(sqlite3 "$tmp/ops.db" "SELECT count(*) FROM sessions WHERE state != 'running'" 2>/dev/null || echo 0)" = 1 ]; do
  sleep 0.1
done
stats_spans=$("$build/cli/optrace" stats 1 --json | /usr/bin/python3 -c \
  'import json, sys; print(sum(int(r["count"]) for r in json.load(sys.stdin)["rows"]))')
read -r spans trimmed drops <<<"$(sqlite3 -separator ' ' "$tmp/ops.db" \
  "SELECT spans, spans_trimmed, dropped_ring_full + dropped_no_ring + dropped_shed + dropped_daemon_restart + dropped_invalid FROM sessions")"
read -r stored first last <<<"$(sqlite3 -separator ' ' "$tmp/ops.db" \
  "SELECT sum(span_count), min(first_start_ns), max(last_start_ns) FROM span_pages WHERE session_id = 1")"
cap_bytes=$(/usr/bin/python3 -c "
import re, sys
m = re.fullmatch(r'(\d+)([KMG]i?B)?', '$cap'); n = int(m.group(1))
print(n * {None: 1, 'KiB': 1024, 'MiB': 1024**2, 'GiB': 1024**3}[m.group(2)])")
printf '| seconds | pairs/s | window | cap | peak on disk (of cap) | samples | pairs produced | stats count | stored | trimmed | spans recorded | stored + trimmed | drops | stored pages cover |\n'
printf '| ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n'
awk -v s="$seconds" -v r="$rate" -v k="$keep" -v c="$cap" -v cb="$cap_bytes" -v p="$peak" \
    -v n="$samples" -v l="$launches" -v st="$stats_spans" -v sp="$spans" -v sd="$stored" \
    -v t="$trimmed" -v d="$drops" -v f="$first" -v la="$last" 'BEGIN {
  printf "| %d | %d | %s | %s | %.1f MiB (%.2fx) | %d | %d | %d | %d | %d | %d | %d | %d | %.1f s |\n",
    s, r, k, c, p / 1048576, p / cb, n, l, st, sd, t, sp, sd + t, d,
    (la - f) / 1e9 }'
