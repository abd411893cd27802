#!/usr/bin/env bash
# The session timeline's server side (docs/BENCHMARKS.md, "Timeline"):
# GetTimeline on bench_queries' 1,000,000-span steps session (session 3,
# about a second of spans 1 us apart, 1,000 steps) at four zoom levels:
# the whole session, then a tenth, a hundredth and a thousandth of it
# around its middle, 1,500 pixels wide.
#  1. the library call (bench_queries BM_GetTimeline, median of ROUNDS),
#     which also writes the database;
#  2. through a real optraced on that database and `optrace ui`: the time
#     from request to last byte of the page's endpoint
#     /api/sessions/3/timeline (gRPC, daemon, JSON), ROUNDS requests per
#     level, each level's median printed, with the CPU time the daemon
#     and `optrace ui` each spent per request (from /proc: what the load
#     of other programs does not inflate); "first" is the page's first
#     request (the whole session, nothing cached by the page).
#  3. the session page in headless Chromium (ui_first_render): from
#     navigation to the timeline's first draw, ROUNDS browsers each with
#     a new profile, and the page's own weight.
#   tests/bench/timeline_page.sh [build dir] [rounds]
set -euo pipefail
build=${1:-build}
rounds=${2:-5}

tmp=$(mktemp -d /tmp/optrace-timeline.XXXXXX)
export OPTRACE_NAMESPACE=timeline$$
daemon=
ui=
cleanup() {
  [ -n "$ui" ] && kill "$ui" 2>/dev/null || true
  [ -n "$daemon" ] && kill "$daemon" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

echo "== library call (bench_queries, median of $rounds)"
OPTRACE_BENCH_DB="$tmp/bench.db" "$build/tests/bench/bench_queries" \
  --benchmark_filter='GetTimeline' --benchmark_repetitions="$rounds" \
  --benchmark_report_aggregates_only=true 2>&1 | grep -E 'median|Benchmark|---'

echo "== through optraced and optrace ui (median of $rounds requests)"
mkdir -m 0700 "$tmp/runtime"
"$build/daemon/optraced" --db "$tmp/bench.db" --socket "$tmp/run/optraced.sock" \
  2>"$tmp/daemon.log" &
daemon=$!
until grep -q ' ready:' "$tmp/daemon.log"; do sleep 0.05; done
: >"$tmp/ui.out"
XDG_RUNTIME_DIR="$tmp/runtime" "$build/cli/optrace" --socket "$tmp/run/optraced.sock" \
  ui --no-open >"$tmp/ui.out" 2>&1 &
ui=$!
until grep -q '^http://' "$tmp/ui.out"; do sleep 0.05; done
url=$(grep '^http://' "$tmp/ui.out")
base=${url%%/?token=*}
token=${url##*token=}

# Seconds from request to the answer's last byte.
ask() {
  curl -s -o /dev/null -w '%{time_total}\n' -H "Authorization: Bearer $token" \
    "$base/api/sessions/3/timeline?$1"
}
median() { sort -g | awk '{v[NR] = $1} END {printf "%.1f ms", 1000 * v[int((NR + 1) / 2)]}'; }
# User + system CPU ticks of process $1 so far.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

echo "first (whole session): $(ask "width=1500" | median)"
read -r start end < <(curl -s -H "Authorization: Bearer $token" \
  "$base/api/sessions/3/timeline?width=1" | /usr/bin/python3 -c \
  'import json, sys; t = json.load(sys.stdin); print(t["session_start_unix_ns"], t["session_end_unix_ns"])')
for zoom in 1 10 100 1000; do
  if [ "$zoom" = 1 ]; then
    query='width=1500'
  else
    # Integer arithmetic in Python: the times pass 2^53.
    query=$(/usr/bin/python3 -c "s, e, z = $start, $end, $zoom; m = (s + e) // 2; h = (e - s) // z // 2; print(f'from={m - h}&to={m + h}&width=1500')")
  fi
  bytes=$(curl -s -H "Authorization: Bearer $token" "$base/api/sessions/3/timeline?$query" | wc -c)
  daemon_before=$(ticks "$daemon")
  ui_before=$(ticks "$ui")
  times=$(for _ in $(seq "$rounds"); do ask "$query"; done | median)
  cpu=$(awk -v d=$(($(ticks "$daemon") - daemon_before)) -v u=$(($(ticks "$ui") - ui_before)) \
    -v hz="$hz" -v n="$rounds" 'BEGIN {printf "CPU per request: optraced %.0f ms, optrace ui %.0f ms", 1000 * d / hz / n, 1000 * u / hz / n}')
  echo "zoom 1/$zoom: $times ($bytes bytes of JSON; $cpu)"
done

echo "== the session page in headless Chromium (each round a new browser, nothing cached)"
if [ -x /usr/bin/chromium ]; then
  "$build/tests/bench/ui_first_render" "$base/session/3?token=$token" "$rounds"
else
  echo "skipped: /usr/bin/chromium is not installed"
fi
