#!/usr/bin/env bash
# Builds the fuzz targets with clang + libFuzzer (ASan, UBSan) in
# build-fuzz/ and runs each for FUZZ_SECONDS (default 35: 12 targets, 2 at
# a time, take 3.5 min, what 7 took at 60 s) from its seed corpus,
# FUZZ_JOBS (default 2) at a time. A crash fails the run with the
# input saved under build-fuzz/crashes/; copy it into
# tests/fuzz/regressions/<target>/ so that it stays a test.
#   tools/run-fuzzers.sh [target...]
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/ccache-env.sh
seconds=${FUZZ_SECONDS:-35}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(segment_reader_fuzzer span_page_codec_fuzzer config_fuzzer request_fuzzer
                                row_binary_fuzzer proto_wire_fuzzer duration_sketch_fuzzer
                                segment_name_fuzzer control_block_fuzzer database_rows_fuzzer
                                fleet_cursor_fuzzer op_key_fuzzer)
if ! command -v clang++-14 >/dev/null; then
  echo "run-fuzzers: clang++-14 is not installed (deploy/install-deps.sh installs it)" >&2
  exit 2
fi
if [ ! -f build-fuzz/CMakeCache.txt ]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DOPTRACE_FUZZ=ON \
    -DOPTRACE_ENABLE_CUDA=OFF -DOPTRACE_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build build-fuzz -j "${OPTRACE_BUILD_JOBS:-2}" --target "${targets[@]}"
# One target's run; fails (printing its log's tail) when it found a crash.
fuzz_one() {
  local target=$1 work=build-fuzz/corpus-work/$1 log=build-fuzz/$1.log
  mkdir -p "$work" build-fuzz/crashes/$target
  cp -n tests/fuzz/corpus/$target/* "$work"/ 2>/dev/null || true
  if ! build-fuzz/tests/fuzz/$target -max_total_time="$seconds" -rss_limit_mb=2048 \
       -artifact_prefix=build-fuzz/crashes/$target/ "$work" tests/fuzz/regressions/$target >"$log" 2>&1; then
    echo "run-fuzzers: $target FAILED; see $log and build-fuzz/crashes/$target/" >&2
    tail -30 "$log" >&2
    return 1
  fi
  echo "run-fuzzers: $target: $(grep -E '^Done [0-9]+ runs' "$log" | tail -1)"
}
# Two targets at a time (FUZZ_JOBS): one per core of a CI machine.
jobs=${FUZZ_JOBS:-2}
failed=0
running=0
for target in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  fuzz_one "$target" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
exit "$failed"
