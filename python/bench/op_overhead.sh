#!/usr/bin/env bash
# The cost of an op from Python (python/bench/op_overhead.py) with a real
# optraced draining the rings, in a namespace and folder of its own.
#   python/bench/op_overhead.sh [build dir]      (default build/)
# Needs the targets optraced and optrace_python built there. Environment:
# OPS (ops per round, 200000), ROUNDS (9).
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
folder=$(mktemp -d)
export OPTRACE_NAMESPACE="pybench$$"
cleanup() {
  [ -n "${daemon:-}" ] && kill -TERM "$daemon" 2>/dev/null && wait "$daemon" || true
  rm -rf "$folder" /dev/shm/"$OPTRACE_NAMESPACE".*
}
trap cleanup EXIT
"$build/daemon/optraced" --db "$folder/optrace.db" --socket "$folder/optraced.sock" \
  2>"$folder/optraced.log" &
daemon=$!
for _ in $(seq 100); do grep -q " ready:" "$folder/optraced.log" && break; sleep 0.1; done
grep -q " ready:" "$folder/optraced.log" || { cat "$folder/optraced.log"; exit 1; }
# Rings large enough that the daemon keeps up with a loop of ops.
OPTRACE_RING_CAPACITY=262144 PYTHONPATH="$build/python" /usr/bin/python3 "$here/op_overhead.py"
PYTHONPATH="$build/python" /usr/bin/python3 - "$folder/optraced.sock" <<'PY'
import sys, optrace
status = optrace.Client(socket=sys.argv[1]).status()
print(f"\nevents ingested {status.events_ingested}, events dropped {status.drops.total}")
PY
