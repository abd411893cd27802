#!/usr/bin/env bash
# A quiet daemon's CPU: optraced with no producer, then with N idle
# producers attached (segments created, nothing traced), each for SECONDS.
#   tests/bench/idle_cpu.sh [build dir] [producers] [seconds]
set -euo pipefail
build=${1:-build}
producers=${2:-50}
seconds=${3:-20}
ticks=$(getconf CLK_TCK)
tmp=$(mktemp -d /tmp/optrace-idle.XXXXXX)
export OPTRACE_NAMESPACE=idle$$
pids=()
trap 'kill ${pids[@]+"${pids[@]}"} $daemon 2>/dev/null || true; rm -rf "$tmp" /dev/shm/$OPTRACE_NAMESPACE.* 2>/dev/null || true' EXIT
cpu() { awk '{print $14 + $15}' "/proc/$daemon/stat"; }
measure() {
  local c0 c1
  c0=$(cpu); sleep "$seconds"; c1=$(cpu)
  awk -v a="$c0" -v b="$c1" -v t="$ticks" -v s="$seconds" 'BEGIN { printf "%.3f%% of a core", 100 * (b - a) / t / s }'
}
"$build/daemon/optraced" --db "$tmp/ops.db" --socket "$tmp/run/optraced.sock" 2>"$tmp/daemon.log" &
daemon=$!
until grep -q ' ready:' "$tmp/daemon.log" 2>/dev/null; do sleep 0.05; done
sleep 1
echo "no producers: $(measure)"
for _ in $(seq "$producers"); do
  "$build/tests/helpers/optrace-test-producer" --ops 0 --hold-open idle >/dev/null 2>&1 &
  pids+=($!)
done
until [ "$(grep -c 'attached' "$tmp/daemon.log")" -ge "$producers" ]; do sleep 0.1; done
sleep 1
echo "$producers idle producers attached: $(measure)"
