#!/usr/bin/env bash
# The main job for a newcomer: install, build, and watch ops being traced.
set -euo pipefail
cd "$(dirname "$0")/.."
deploy/install-deps.sh
tools/build.sh
echo
echo "== optrace-hello with OPTRACE_LEVEL=trace OPTRACE_SINK=stderr (no daemon needed) =="
OPTRACE_LEVEL=trace OPTRACE_SINK=stderr build/client-lib/optrace-hello
