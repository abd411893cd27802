#!/usr/bin/env bash
# NVTX range pair cost (push + pop) of the same annotated loop, three ways:
#   none   no tool attached (NVTX's no-op path)
#   trace  liboptrace_nvtx.so, level trace, a real optraced draining
#   off    liboptrace_nvtx.so loaded, level off (optraced running)
# Prints a markdown table (median, min and max ns per pair over REPS
# repetitions of PAIRS pairs) and the drops the daemon recorded.
#   tests/bench/nvtx_overhead.sh [build dir]
# PAIRS (default 100000) x REPS (default 10) pairs per configuration.
set -euo pipefail
build=${1:-build}
pairs=${PAIRS:-100000}
reps=${REPS:-10}
bench="$build/tests/bench/nvtx_overhead"
lib="$build/nvtx/liboptrace_nvtx.so"

tmp=$(mktemp -d /tmp/optrace-nvtx-bench.XXXXXX)
export OPTRACE_NAMESPACE=nvtxbench$$
daemon=""
trap '[ -n "$daemon" ] && kill $daemon 2>/dev/null; rm -rf "$tmp" /dev/shm/$OPTRACE_NAMESPACE.* 2>/dev/null || true' EXIT

"$build/daemon/optraced" --db "$tmp/ops.db" --socket "$tmp/run/optraced.sock" \
  --retention-max-bytes 0 2>"$tmp/daemon.log" &
daemon=$!
until grep -qs ' ready:' "$tmp/daemon.log"; do sleep 0.05; done

# A ring of 2^18 events holds one repetition of up to 131072 pairs, and
# the program's warm-up fills it exactly once (every slot touched, nothing
# dropped); a drain slower than the pauses between repetitions would show
# as drops (optrace never blocks), which the summary below reports.
ring=$((1 << 18))
run() {  # run <label> <env...>
  local label=$1
  shift
  local out
  out=$(env "$@" OPTRACE_RING_CAPACITY=$ring "$bench" --pairs "$pairs" --reps "$reps" \
        --warmup-pairs $((ring / 2)))
  echo "$out" | awk -v l="$label" '{
    for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    printf "| %s | %s | %s | %s |\n", l, v["median_ns_per_pair"], v["min_ns_per_pair"], v["max_ns_per_pair"]
  }'
}

echo "| configuration | median ns/pair | min | max |"
echo "| --- | ---: | ---: | ---: |"
run "no tool" -u NVTX_INJECTION64_PATH
run "liboptrace_nvtx, level trace, daemon draining" NVTX_INJECTION64_PATH="$lib" OPTRACE_LEVEL=trace
run "liboptrace_nvtx, level off" NVTX_INJECTION64_PATH="$lib" OPTRACE_LEVEL=off

# The traced run's session: spans stored and events dropped.
sleep 1
echo
sqlite3 -separator ' ' "$tmp/ops.db" \
  "SELECT 'traced session: spans=' || spans || ' dropped=' ||
          (dropped_ring_full + dropped_no_ring + dropped_shed + dropped_daemon_restart + dropped_invalid)
   FROM sessions WHERE spans > 0"
