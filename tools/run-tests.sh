#!/usr/bin/env bash
# The test command: installs what the build needs, builds once, runs every
# test with ctest (the timing-sensitive ones twice), then the sanitizer
# builds of the core tests and a bounded fuzzing run. CI runs exactly this
# (.ci/run, from a private clone).
#   OPTRACE_QUICK=1 tools/run-tests.sh   # the main build's tests only
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage says when it ended, so that CI's time budget can be kept.
stage_done() { echo "run-tests: $1 done, $SECONDS s since the start"; }
deploy/install-deps.sh
stage_done "installing dependencies"
tools/build.sh
stage_done "the build"
# Tests whose outcome can depend on timing (real processes, sockets and
# threads racing on a loaded machine) run twice: a test that fails one run
# in two does not pass by luck. The rest run once.
timing_labels='^(integration|cli|reliability)$'
ctest --test-dir build --output-on-failure -j 2 --timeout 600 -LE "$timing_labels"
ctest --test-dir build --output-on-failure -j 2 --timeout 600 -L "$timing_labels" \
  --repeat until-fail:2
stage_done "the tests"
if [ "${OPTRACE_QUICK:-0}" != 1 ]; then
  tools/run-sanitizers.sh address thread
  stage_done "the sanitizer runs"
  tools/run-fuzzers.sh
  stage_done "the fuzzers"
fi
