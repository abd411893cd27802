#!/usr/bin/env bash
# Tail latency at a given op rate: COMPLETE in the producer to the event
# read by a Tail client, p50/p99 over the run. The producer starts at level
# off; the tail raises it to trace, as `optrace tail --level=trace` does.
# With TAILS > 1, that many Tail clients read at once, each measured on
# its own (one line each).
#   tests/bench/tail_latency.sh [build dir] [pairs per second] [seconds] [events|spans] [tails]
set -euo pipefail
build=${1:-build}
rate=${2:-100000}
seconds=${3:-10}
items=${4:-events}
tails=${5:-1}
tmp=$(mktemp -d /tmp/optrace-lat.XXXXXX)
export OPTRACE_NAMESPACE=lat$$
trap 'kill $daemon 2>/dev/null || true; rm -rf "$tmp" /dev/shm/$OPTRACE_NAMESPACE.* 2>/dev/null || true' EXIT
"$build/daemon/optraced" --db "$tmp/ops.db" --socket "$tmp/run/optraced.sock" 2>"$tmp/daemon.log" &
daemon=$!
until grep -q ' ready:' "$tmp/daemon.log"; do sleep 0.05; done
clients=()
for i in $(seq "$tails"); do
  "$build/tests/bench/optrace-tail-latency" "$tmp/run/optraced.sock" "$((seconds + 2))" "$items" \
    >"$tmp/latency.$i.out" &
  clients+=($!)
done
sleep 0.5
"$build/tests/bench/optrace-load" --threads 1 --rate "$rate" --seconds "$seconds" >/dev/null
wait "${clients[@]}"
for i in $(seq "$tails"); do
  echo "rate=$rate items=$items tails=$tails $(cat "$tmp/latency.$i.out")"
done
