#!/usr/bin/env bash
# The forwarder beside clickhouse-client inserting the same rows, in one run:
#   tests/bench/forward_vs_clickhouse.sh [BUILD_DIR]
# Runs fleet_integration_tests' disabled throughput test, which starts its
# own clickhouse-server processes (tests/fleet/clickhouse_server.*: loopback,
# free ports, a temporary folder), stores 2,000,001 spans with forwarding
# off, forwards them (timed from the daemon's start until ClickHouse has
# acknowledged them all), reads the rows back in RowBinary and times
# `clickhouse-client ... INSERT ... FORMAT RowBinary` of that file into a
# table like the span table on the same server; once with plain bodies and
# once with gzip. OPTRACE_BENCH_SPANS_M (default 0.25, at most 0.5) sets
# the millions of ops per producer thread (4 threads, 2 spans an op).
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
cmake --build "$build" -j2 --target fleet_integration_tests optraced optrace-test-producer \
  optrace-cli >&2
"$build/tests/fleet/fleet_integration_tests" --gtest_also_run_disabled_tests \
  --gtest_filter='*Throughput_StoredBacklog*' |
  grep -E '^(forwarded|clickhouse-client) '
