#!/usr/bin/env bash
# Two builds side by side, rounds interleaved (A, B, A, B, ...), so that a
# change that should not move the figures (a restructuring) is checked on
# the same machine state: the producer's cost (bench_client), the daemon's
# CPU per million spans end to end (e2e_bench.sh), what serving 20 tails
# costs per item (tail_cost.sh) and GetStats by name on a 10M-span session
# (bench_queries, which writes its session afresh in each run).
#   [E2E_RATE=200000] [TAIL_RATE=20000] tests/bench/compare_builds.sh BUILD_A BUILD_B [rounds]
# The rates default to what this 2-core machine takes without a drop or a
# skipped tail item (a figure reached while events were lost is none): the
# e2e line's drops column and the tails' skipped= must read 0.
# Prints one line per build and round; medians are left to the reader
# (docs/BENCHMARKS.md, "Before and after the restructuring").
set -euo pipefail
a=${1:?build A}
b=${2:?build B}
rounds=${3:-3}
e2e_rate=${E2E_RATE:-200000}
tail_rate=${TAIL_RATE:-20000}
here=$(cd "$(dirname "$0")" && pwd)
unset OPTRACE_BENCH_DB  # bench_queries refuses a database that exists

for round in $(seq "$rounds"); do
  for build in "$a" "$b"; do
    client=$("$build/tests/bench/bench_client" \
      --benchmark_filter='^(BM_OpPair_Enabled|BM_FloorRing_Pair)/real_time/threads:1$' \
      --benchmark_repetitions=5 --benchmark_report_aggregates_only=true 2>/dev/null |
      awk '/_median/ {printf "%s %s %s; ", $1, $2, $3}')
    e2e=$("$here/e2e_bench.sh" "$build" 5 "$e2e_rate" | tail -1)
    tails=$("$here/tail_cost.sh" "$build" "$tail_rate" 5 20 | grep -o 'items_delivered=[0-9]* .*daemon_ns_per_item=[0-9]*')
    stats=$("$build/tests/bench/bench_queries" --benchmark_filter='GetStats/by_name' \
      --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>/dev/null |
      awk '/_median/ {print $2 " " $3; exit}')
    echo "round $round $build | bench_client pair: $client | e2e: $e2e | tails: $tails | GetStats by name: $stats"
  done
done
