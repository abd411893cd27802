#!/usr/bin/env bash
# The test command: installs what the build needs, builds once, runs every
# test with ctest, then the sanitizer builds of the core tests and a
# bounded fuzzing run. CI runs exactly this (.ci/run).
#   OPTRACE_QUICK=1 tools/run-tests.sh   # the main build's tests only
set -euo pipefail
cd "$(dirname "$0")/.."
deploy/install-deps.sh
tools/build.sh
ctest --test-dir build --output-on-failure -j 2 --timeout 600
if [ "${OPTRACE_QUICK:-0}" != 1 ]; then
  tools/run-sanitizers.sh address thread
  FUZZ_SECONDS=${FUZZ_SECONDS:-60} tools/run-fuzzers.sh
fi
