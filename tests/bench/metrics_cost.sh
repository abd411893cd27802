#!/usr/bin/env bash
# The daemon's CPU per span with the metrics endpoint off and on, the
# endpoint scraped every second meanwhile as Prometheus would: ROUNDS
# interleaved rounds of tests/bench/e2e_bench.sh at RATE pairs/s for
# SECONDS each (docs/BENCHMARKS.md: metrics). Prints e2e_bench's row of
# each run; compare the CPU column of runs without drops.
#   tests/bench/metrics_cost.sh [BUILD] [ROUNDS] [SECONDS] [RATE]
set -euo pipefail
build="${1:-build}"
rounds="${2:-3}"
seconds="${3:-10}"
rate="${4:-300000}"
bench="$(dirname "$0")/e2e_bench.sh"
port=$((20000 + $$ % 20000))
scraper=
trap '[ -z "$scraper" ] || kill "$scraper" 2>/dev/null || true' EXIT
for round in $(seq "$rounds"); do
  echo "round $round, off: $("$bench" "$build" "$seconds" "$rate" | tail -1)"
  (while true; do curl -s -o /dev/null "http://127.0.0.1:$port/metrics" || true; sleep 1; done) &
  scraper=$!
  echo "round $round, on:  $(DAEMON_ARGS="--metrics-listen 127.0.0.1:$port --metrics-insecure" \
    "$bench" "$build" "$seconds" "$rate" | tail -1)"
  kill "$scraper"
  wait "$scraper" 2>/dev/null || true
  scraper=
done
