#!/usr/bin/env bash
# optraced's memory under live load, per allocator: RSS idle, the peak
# while a producer runs alone, the peak while it runs beside STALLED Tail
# streams that never read, and RSS 10 s after the load and the tails end.
# Each figure is VmRSS and, in brackets, the daemon's own part: VmRSS less
# RssShmem, the producers' rings that the daemon maps (shared pages that
# the producers own and that count in every process mapping them).
#   [RING=events per ring] tests/bench/tail_memory.sh [build dir] [pairs per second] [seconds] [stalled tails]
# RING unset: the producers' default rings.
# Allocators: glibc (default arenas), glibc with MALLOC_ARENA_MAX=2, and
# Debian's jemalloc and mimalloc through LD_PRELOAD (when installed).
set -euo pipefail
build=${1:-build}
rate=${2:-500000}
seconds=${3:-3}
stalled=${4:-300}
lib=/usr/lib/x86_64-linux-gnu
ring=(${RING:+OPTRACE_RING_CAPACITY=$RING})
# "VmRSS private" of pid $1 in MiB.
rss() {
  awk '/VmRSS/ {r = $2} /RssShmem/ {s = $2} END {printf "%d %d\n", r / 1024, (r - s) / 1024}' \
    /proc/"$1"/status
}
# Peak "VmRSS (private)" of pid $1 while pid $2 lives, sampled every 50 ms.
peak_while() {
  local peak=0 private=0 now now_private
  while kill -0 "$2" 2>/dev/null; do
    read -r now now_private < <(rss "$1")
    [ "$now" -gt "$peak" ] && peak=$now
    [ "$now_private" -gt "$private" ] && private=$now_private
    sleep 0.05
  done
  echo "$peak ($private)"
}
now() {  # "VmRSS (private)" of pid $1 now
  local resident private
  read -r resident private < <(rss "$1")
  echo "$resident ($private)"
}
load() {  # runs the producer in the background; its report goes to $1
  env "${ring[@]}" OPTRACE_LEVEL=trace "$build/tests/bench/optrace-load" \
    --threads 2 --rate "$rate" --seconds "$seconds" >"$1" &
}
drops() {  # the events a producer's report ($1) says it dropped
  sed -n 's/.* ring_full=\([0-9]*\) no_ring=\([0-9]*\).*/\1 + \2/p' "$1" | bc
}
run() {  # $1 = label, then env assignments for the daemon
  local label=$1; shift
  local tmp; tmp=$(mktemp -d /tmp/optrace-mem.XXXXXX)
  export OPTRACE_NAMESPACE=mem$$
  env "$@" "$build/daemon/optraced" --db "$tmp/ops.db" --socket "$tmp/run/optraced.sock" \
    2>"$tmp/daemon.log" &
  local daemon=$!
  until grep -q ' ready:' "$tmp/daemon.log"; do sleep 0.05; done
  sleep 0.5
  local idle; idle=$(now $daemon)
  load "$tmp/alone.out"
  local alone; alone=$(peak_while $daemon $!)
  "$build/tests/helpers/optrace-test-client" stall "$tmp/run/optraced.sock" "$stalled" 10 \
    >"$tmp/stall.out" &
  local client=$!
  until grep -q opened "$tmp/stall.out"; do sleep 0.05; done
  sleep 1
  load "$tmp/tailed.out"
  local tailed; tailed=$(peak_while $daemon $!)
  kill $client; wait $client 2>/dev/null || true
  sleep 10
  local after; after=$(now $daemon)
  kill $daemon; wait $daemon || true
  local dropped; dropped="$(drops "$tmp/alone.out") alone, $(drops "$tmp/tailed.out") tailed"
  rm -rf "$tmp" /dev/shm/$OPTRACE_NAMESPACE.* 2>/dev/null || true
  echo "$label: idle ${idle} MiB, producer alone peak ${alone} MiB, beside $stalled stalled tails peak ${tailed} MiB, 10 s after ${after} MiB; producer drops: $dropped"
}
echo "rings: ${RING:-default}; VmRSS (without the rings' shared pages)"
run "glibc"
run "glibc MALLOC_ARENA_MAX=2" MALLOC_ARENA_MAX=2
[ -e $lib/libjemalloc.so.2 ] && run "jemalloc 5.3" LD_PRELOAD=$lib/libjemalloc.so.2
[ -e $lib/libmimalloc.so.2 ] && run "mimalloc 2.0" LD_PRELOAD=$lib/libmimalloc.so.2
exit 0
