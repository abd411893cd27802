#!/usr/bin/env bash
# End to end, producers to committed SQLite: for each offered rate, runs
# optrace-load against a fresh optraced for SECONDS seconds and reports the
# pairs offered, the spans committed, the drops, the daemon's CPU per
# million spans and its peak RSS.
#   tests/bench/e2e_bench.sh [build dir] [seconds] [rates...]
# Rates are op pairs per second over all producer threads; 0 = unpaced.
# DAEMON_ARGS: more optraced flags (e.g. "--keep-last 2s"), split on spaces.
# LOAD: the producer (default the build's optrace-load; another build's,
# to offer two daemons the same load); LOAD_ARGS: more of its flags
# (e.g. "--nest 1").
set -euo pipefail
build=${1:-build}
seconds=${2:-10}
shift $(( $# > 2 ? 2 : $# ))
rates=("$@")
[ ${#rates[@]} -gt 0 ] || rates=(100000 500000 1000000 0)
threads=${THREADS:-2}
ticks=$(getconf CLK_TCK)

tmp=$(mktemp -d /tmp/optrace-e2e.XXXXXX)
export OPTRACE_NAMESPACE=e2e$$
trap 'kill $daemon 2>/dev/null || true; rm -rf "$tmp" /dev/shm/$OPTRACE_NAMESPACE.* 2>/dev/null || true' EXIT

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

printf '| offered pairs/s | threads | pairs recorded | spans committed | committed spans/s | drops | daemon CPU s per 1M spans | daemon peak RSS MiB |\n'
printf '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n'
for rate in "${rates[@]}"; do
  rm -f "$tmp"/ops.db*
  "$build/daemon/optraced" --db "$tmp/ops.db" --socket "$tmp/run/optraced.sock" \
    --retention-max-bytes 0 ${DAEMON_ARGS:-} 2>"$tmp/daemon.log" &
  daemon=$!
  until grep -q ' ready:' "$tmp/daemon.log"; do sleep 0.05; done
  cpu0=$(cpu_ticks $daemon)
  t0=$(date +%s.%N)
  # RING: ring capacity in events; unset, the library's default.
  out=$(env OPTRACE_LEVEL=trace ${RING:+OPTRACE_RING_CAPACITY=$RING} \
        "${LOAD:-$build/tests/bench/optrace-load}" --threads "$threads" --rate "$rate" \
        --seconds "$seconds" ${LOAD_ARGS:-})
  pid_line=$(echo "$out" | grep '^done')
  launches=$(echo "$pid_line" | sed 's/.*launches=\([0-9]*\).*/\1/')
  # Wait until the session's end is committed, then take the time.
  until [ "$(sqlite3 "$tmp/ops.db" "SELECT count(*) FROM sessions WHERE state != 'running'" 2>/dev/null || echo 0)" = 1 ]; do
    sleep 0.02
  done
  t1=$(date +%s.%N)
  cpu1=$(cpu_ticks $daemon)
  rss=$(awk '/VmHWM/ {print $2}' "/proc/$daemon/status")
  read -r spans drops <<<"$(sqlite3 -separator ' ' "$tmp/ops.db" \
    "SELECT spans, dropped_ring_full + dropped_no_ring + dropped_shed + dropped_daemon_restart + dropped_invalid FROM sessions")"
  kill $daemon; wait $daemon 2>/dev/null || true
  awk -v r="$rate" -v th="$threads" -v l="$launches" -v s="$spans" -v d="$drops" \
      -v t0="$t0" -v t1="$t1" -v c0="$cpu0" -v c1="$cpu1" -v tk="$ticks" -v rss="$rss" 'BEGIN {
    el = t1 - t0; cpu = (c1 - c0) / tk;
    printf "| %s | %d | %d | %d | %.0f | %d | %.2f | %.1f |\n",
      (r == 0 ? "unpaced" : r), th, l, s, s / el, d, (s > 0 ? cpu / (s / 1e6) : 0), rss / 1024 }'
done
