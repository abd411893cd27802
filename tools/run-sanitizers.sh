#!/usr/bin/env bash
# The unit and integration tests that cover the ring, the reader, the
# correlator, storage, the RPCs, the Python extension and the PyTorch
# tracer's plain C++ parts (tags, op id cache), built and run
# under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/) and
# ThreadSanitizer (build-tsan/; not the extension). Any report fails the run.
#   tools/run-sanitizers.sh [address|thread]...
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/ccache-env.sh
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(address thread)
targets=(client_tests daemon_model_tests daemon_storage_tests daemon_config_tests
         daemon_correlate_tests daemon_drain_tests daemon_live_tests daemon_wire_tests
         daemon_query_tests daemon_export_tests daemon_api_tests
         daemon_integration_tests api_integration_tests ingest_integration_tests
         window_integration_tests listing_integration_tests tcp_auth_integration_tests
         fleet_integration_tests
         optraced optrace-cli optrace-test-producer optrace-test-client optrace-load)
# Tests whose figures are timing claims, not correctness: sanitizers make
# everything several times slower, so they are left to the normal build.
# RingPastWatermark asserts that a flooding producer found the drain thread
# asleep; under ThreadSanitizer the drain often keeps pace and never sleeps
# (7 failures in 10 runs with fe0eb3a's daemon as with today's; the normal
# build passes it every time).
# Tests that run a process out of file descriptors on purpose (EMFILE) are
# left to the normal build too: UBSan's vptr check then reports calls on
# sound objects ("object has invalid vptr ... memory cannot be printed"),
# since its probe of the object's memory needs a pipe it cannot open.
exclude='SlowTailClient|IngestTest.RingPastWatermark'
exclude+='|ConnectionsPastTheFdLimit|OutOfFileDescriptors|ResumedSegmentNotOpenedYet'
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Tests run some programs as other uids, which may not reach a private
# checkout: the suppressions are read from a copy they can read.
suppressions=$(mktemp /tmp/optrace-tsan.XXXXXX)
trap 'rm -f "$suppressions"' EXIT
cp tests/tsan.supp "$suppressions"
chmod 0644 "$suppressions"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$suppressions"
for kind in "${kinds[@]}"; do
  dir=build-$( [ "$kind" = address ] && echo asan || echo tsan )
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    cmake -S . -B "$dir" -G Ninja -DOPTRACE_SANITIZE="$kind" -DOPTRACE_ENABLE_CUDA=OFF \
      -DOPTRACE_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  fi
  cmake --build "$dir" -j "${OPTRACE_BUILD_JOBS:-2}" --target "${targets[@]}"
  ctest --test-dir "$dir" -L 'client|daemon|api|fleet' -E "$exclude" --output-on-failure -j 2 --timeout 900
  # The PyTorch tracer's plain C++ parts (tag rules, per-thread op id
  # cache), without libtorch; the target exists where libtorch was found.
  if cmake --build "$dir" --target help | grep '^torch_unit_tests: ' >/dev/null; then
    cmake --build "$dir" -j "${OPTRACE_BUILD_JOBS:-2}" --target torch_unit_tests
    ctest --test-dir "$dir" -L torch -LE python --output-on-failure -j 2 --timeout 900
  fi
  # The Python extension (python/extension) under ASan + UBSan, driven by
  # the Python tests. /usr/bin/python3 is not instrumented: the runtimes are
  # preloaded into it, and leak checking is off (the interpreter frees
  # little at exit). The PyTorch tracer (label torch) is not built here.
  if [ "$kind" = address ]; then
    cmake --build "$dir" -j "${OPTRACE_BUILD_JOBS:-2}" --target optrace_python
    LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)" \
      ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
      ctest --test-dir "$dir" -L python -LE torch --output-on-failure -j 2 \
      --timeout 900
  fi
done
