#!/usr/bin/env bash
# Builds the fuzz targets with clang + libFuzzer (ASan, UBSan) in
# build-fuzz/ and runs each for FUZZ_SECONDS (default 60) from its seed
# corpus. A crash stops the run with the input saved under build-fuzz/;
# copy it into tests/fuzz/regressions/<target>/ so that it stays a test.
#   tools/run-fuzzers.sh [target...]
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/ccache-env.sh
seconds=${FUZZ_SECONDS:-60}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(segment_reader_fuzzer span_page_codec_fuzzer config_fuzzer request_fuzzer
                                row_binary_fuzzer proto_wire_fuzzer duration_sketch_fuzzer)
if ! command -v clang++-14 >/dev/null; then
  echo "run-fuzzers: clang++-14 is not installed (deploy/install-deps.sh installs it)" >&2
  exit 2
fi
if [ ! -f build-fuzz/CMakeCache.txt ]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DOPTRACE_FUZZ=ON \
    -DOPTRACE_ENABLE_CUDA=OFF -DOPTRACE_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build build-fuzz -j "${OPTRACE_BUILD_JOBS:-2}" --target "${targets[@]}"
for target in "${targets[@]}"; do
  work=build-fuzz/corpus-work/$target
  mkdir -p "$work" build-fuzz/crashes/$target
  cp -n tests/fuzz/corpus/$target/* "$work"/ 2>/dev/null || true
  log=build-fuzz/$target.log
  if ! build-fuzz/tests/fuzz/$target -max_total_time="$seconds" -rss_limit_mb=2048 \
       -artifact_prefix=build-fuzz/crashes/$target/ "$work" tests/fuzz/regressions/$target >"$log" 2>&1; then
    echo "run-fuzzers: $target FAILED; see $log and build-fuzz/crashes/$target/" >&2
    tail -30 "$log" >&2
    exit 1
  fi
  echo "run-fuzzers: $target: $(grep -E '^Done [0-9]+ runs' "$log" | tail -1)"
done
