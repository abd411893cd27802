#!/usr/bin/env bash
# The session page's first draw with two builds of the CLI side by side
# (docs/BENCHMARKS.md, "Timeline"): both `optrace ui`s serve one optraced
# on bench_queries' 1M-span steps session (session 3), and
# ui_first_render alternates between them, PAIRS times ROUNDS browsers
# each, so that both see the same load.
#   tests/bench/ui_render_ab.sh OPTRACE_A OPTRACE_B [pairs] [rounds] [build dir]
set -euo pipefail
optrace_a=$1
optrace_b=$2
pairs=${3:-4}
rounds=${4:-3}
build=${5:-build}

tmp=$(mktemp -d /tmp/optrace-ui-ab.XXXXXX)
export OPTRACE_NAMESPACE=uiab$$
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

OPTRACE_BENCH_DB="$tmp/bench.db" "$build/tests/bench/bench_queries" \
  --benchmark_filter='GetTimeline/whole' --benchmark_repetitions=1 >/dev/null
"$build/daemon/optraced" --db "$tmp/bench.db" --socket "$tmp/run/optraced.sock" \
  2>"$tmp/daemon.log" &
pids+=($!)
until grep -q ' ready:' "$tmp/daemon.log" 2>/dev/null; do sleep 0.05; done
urls=()
for side in a b; do
  binary=$optrace_a
  [ "$side" = b ] && binary=$optrace_b
  mkdir -m 0700 "$tmp/runtime-$side"
  XDG_RUNTIME_DIR="$tmp/runtime-$side" "$binary" --socket "$tmp/run/optraced.sock" \
    ui --no-open >"$tmp/$side.out" 2>&1 &
  pids+=($!)
  until grep -q '^http://' "$tmp/$side.out"; do sleep 0.05; done
  url=$(grep '^http://' "$tmp/$side.out")
  urls+=("${url%%/?token=*}/session/3?token=${url##*token=}")
done
for _ in $(seq "$pairs"); do
  echo "A: $("$build/tests/bench/ui_first_render" "${urls[0]}" "$rounds" | tail -n 1)"
  echo "B: $("$build/tests/bench/ui_first_render" "${urls[1]}" "$rounds" | tail -n 1)"
done
