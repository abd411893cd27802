#!/usr/bin/env bash
# Scrape time of optraced's /metrics with about 1,000 op series: 5 Python
# producers of 200 names each (the per-session cap; 199 their own) against a
# daemon of its own, then RUNS scrapes with curl; prints each time and the
# median, and the daemon's CPU time per scrape (utime + stime from /proc,
# which a loaded machine does not stretch as it does wall time)
# (docs/BENCHMARKS.md: metrics); SCRAPE_OUT=FILE keeps the last scrape. Usage, from the build folder's
# parent: tests/bench/metrics_scrape.sh [BUILD] [RUNS]
set -euo pipefail
build="${1:-build}"
runs="${2:-21}"
T=$(mktemp -d /tmp/optrace-metrics-bench.XXXXXX)
export OPTRACE_NAMESPACE="mbench$$"
port=$((20000 + $$ % 20000))
"$build/daemon/optraced" --db "$T/db" --socket "$T/run/s.sock" \
  --metrics-listen "127.0.0.1:$port" --metrics-insecure >"$T/log" 2>&1 &
daemon=$!
trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null; rm -rf "$T" /dev/shm/$OPTRACE_NAMESPACE.*' EXIT
until grep -q " ready:" "$T/log"; do
  kill -0 "$daemon" 2>/dev/null || { cat "$T/log" >&2; exit 1; }  # e.g. the port is taken
  sleep 0.1
done
export PYTHONPATH="$build/python:$(dirname "$0")/../python" OPTRACE_LEVEL=trace
for i in 1 2 3 4 5; do
  /usr/bin/python3 "$(dirname "$0")/../python/programs/metrics_program.py" 1 199 "p${i}name" >/dev/null &
done
wait $(jobs -p | grep -v "^$daemon$") 2>/dev/null || true
sleep 2
series=$(curl -s "http://127.0.0.1:$port/metrics" | grep -c '^optrace_ops_total{')
echo "op series: $series"
# The daemon's CPU time so far, in clock ticks (fields 14 and 15 of stat).
daemon_ticks() { awk '{ print $14 + $15 }' "/proc/$daemon/stat"; }
ticks_before=$(daemon_ticks)
times=()
for _ in $(seq "$runs"); do
  times+=("$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$port/metrics")")
  [ -z "${SPLIT:-}" ] || curl -s -o /dev/null -w 'first byte %{time_starttransfer} total %{time_total}\n' "http://127.0.0.1:$port/metrics"
done
ticks=$(( $(daemon_ticks) - ticks_before ))
printf '%s\n' "${times[@]}" | sort -n | tr '\n' ' '; echo
echo "daemon CPU per scrape: $(awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" -v n="$runs" \
  -v twice="${SPLIT:-}" 'BEGIN { printf "%.1f ms", t * 1000 / hz / n / (twice == "" ? 1 : 2) }')"
echo "median: $(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p") s"
curl -s "http://127.0.0.1:$port/metrics" >"$T/scrape.txt"
echo "bytes: $(wc -c <"$T/scrape.txt")"
[ -z "${SCRAPE_OUT:-}" ] || cp "$T/scrape.txt" "$SCRAPE_OUT"
