#!/usr/bin/env bash
# Configures and builds optrace into build/ (ccache when present, warnings
# as errors). Used by the README's commands; safe to run repeatedly.
#   tools/build.sh                    # everything, tests included
#   tools/build.sh optraced ...       # only these targets and what they need
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/ccache-env.sh
generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPTRACE_WERROR=ON
fi
targets=()
if [ $# -gt 0 ]; then targets=(--target "$@"); fi
cmake --build build -j "${OPTRACE_BUILD_JOBS:-2}" "${targets[@]}"
