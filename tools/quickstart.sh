#!/usr/bin/env bash
# The main job for a newcomer, in one command: install what the build
# needs, build, start optraced for this user (or reuse a running one), run
# the demo runtime op by op and fused while `optrace tail --level=trace`
# watches, then show the statistics of both runs and their comparison.
set -euo pipefail
cd "$(dirname "$0")/.."

deploy/install-deps.sh
# Only what this script runs: the daemon, the CLI and the demo runtime
# (with liboptrace); tools/run-tests.sh builds the rest.
tools/build.sh optraced optrace-cli optrace-demo

optrace=build/cli/optrace
optraced=build/daemon/optraced
demo=build/kernels/optrace-demo
work=$(mktemp -d /tmp/optrace-quickstart.XXXXXX)
trap 'rm -rf "$work"' EXIT

step() { printf '\n\033[1m== %s ==\033[0m\n' "$*"; }

step "optraced for $(id -un)"
if "$optrace" status >/dev/null 2>&1; then
  echo "reusing the daemon that answers on its socket:"
else
  state=$( [ "$(id -u)" = 0 ] && echo /var/lib/optrace || echo "${XDG_STATE_HOME:-$HOME/.local/state}/optrace" )
  mkdir -p "$state"
  # Detached from this shell so that it keeps running after the script.
  setsid "$optraced" >>"$state/optraced.log" 2>&1 </dev/null &
  for _ in $(seq 100); do
    "$optrace" status >/dev/null 2>&1 && break
    sleep 0.1
  done
  echo "started optraced (log: $state/optraced.log; stop it with: pkill -x optraced):"
fi
"$optrace" status | head -n 6

step "optrace tail --level=trace, while the demo runs (first lines)"
# A tail at trace would raise a quiet runtime to trace from its first op.
"$optrace" tail --level=trace >"$work/tail.txt" 2>&1 &
tail_pid=$!
sleep 0.5

# `optrace run` traces the command and prints its session on stderr.
run_demo() {
  local label=$1 mode=$2
  "$optrace" run --label "$label" -- "$demo" --mode "$mode" --steps 8 \
    >"$work/$label.out" 2>"$work/$label.err"
  sed -n 's/^optrace: session \([0-9]*\).*/\1/p' "$work/$label.err"
}
unfused=$(run_demo demo-unfused unfused)
fused=$(run_demo demo-fused fused)
sleep 0.3
kill -INT "$tail_pid" 2>/dev/null || true
wait "$tail_pid" 2>/dev/null || true
head -n 12 "$work/tail.txt"
echo "... ($(wc -l <"$work/tail.txt") lines in all)"

step "the two runs"
echo "unfused: session $unfused, $(cat "$work/demo-unfused.out")"
echo "fused:   session $fused, $(cat "$work/demo-fused.out")"

step "optrace stats $unfused   (op by op)"
"$optrace" stats "$unfused" | tee "$work/unfused.stats"

step "optrace stats $fused   (fused kernels)"
"$optrace" stats "$fused" | tee "$work/fused.stats"

step "optrace diff $unfused $fused"
"$optrace" diff "$unfused" "$fused" | tee "$work/diff.txt"

ops() { sed -n 's/^\([0-9]*\) spans.*/\1/p' "$1"; }
# OPS SAVED, the last column of a fusion's line in the diff.
saved() { awk -v name="$1" '$1 == name { print $NF; exit }' "$work/diff.txt"; }
cat <<EOF

Same model, same checksum: the fused run did it in $(ops "$work/fused.stats") ops instead of
$(ops "$work/unfused.stats"). The diff's first table puts each fused op beside the ops it
replaced, as its tag names them: fused_matmul_gelu does a layer's matmul and
its GELU (matmul_16x1024x256_f32 + elementwise_gelu_16384_f32) in one op,
applying GELU in the matmul's epilogue instead of a separate pass over the
wide intermediate: $(saved fused_matmul_gelu) ops fewer. fused_rms_norm_matmul normalises rows
as the head's matmul reads them: $(saved fused_rms_norm_matmul) fewer. Its group counts every
rms_norm_16x256_f32 of both runs, since the layers still run theirs unfused
(COUNT B of that line), so both sides count the same work. The second table
is what no fusion touched. On a GPU every op removed is a kernel launch and
a trip through device memory saved (there, run the demo with --device gpu).
Next:
  $optrace sessions --all
  $optrace ops $fused --limit 20
  $optrace export $fused --format perfetto -o fused.pftrace   (open in https://ui.perfetto.dev)
  $optrace tail --level=trace       (then run any traced program)
EOF
