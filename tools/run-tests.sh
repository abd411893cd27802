#!/usr/bin/env bash
# The test command: installs what the build needs, builds once, runs every
# test with ctest. CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
deploy/install-deps.sh
tools/build.sh
ctest --test-dir build --output-on-failure -j 2 --timeout 600
