#!/usr/bin/env bash
# Runs bench_client with repetitions and prints the table and ratios of
# docs/BENCHMARKS.md. Usage: tests/bench/run_client_bench.sh [build dir]
set -euo pipefail
build=${1:-build}
out=$(mktemp /tmp/bench_client.XXXXXX.json)
"$build/tests/bench/bench_client" --benchmark_repetitions=${REPS:-10} \
  --benchmark_min_time=${MIN_TIME:-0.2} --benchmark_format=json >"$out"
python3 "$(dirname "$0")/client_bench_table.py" "$out"
