#!/usr/bin/env bash
# What serving tailed items costs: the CPU the daemon and the Tail clients
# spend per item delivered, beside a producer at a given rate.
#   tests/bench/tail_cost.sh [build dir] [pairs per second] [seconds] [tails] [latency|cli]
# latency (the default): TAILS optrace-tail-latency clients (batched
# stream, LAUNCH and COMPLETE events); cli: one `optrace tail --level=trace`
# printing to /dev/null. The daemon's CPU is read from /proc over the
# producer's run, the clients' from /usr/bin/time; items delivered are
# the clients' counts (each COMPLETE read stands for two items, its LAUNCH
# too; the cli mode counts printed lines).
set -euo pipefail
build=${1:-build}
rate=${2:-100000}
seconds=${3:-5}
tails=${4:-20}
client=${5:-latency}
tmp=$(mktemp -d /tmp/optrace-cost.XXXXXX)
export OPTRACE_NAMESPACE=cost$$
trap 'kill $daemon 2>/dev/null || true; rm -rf "$tmp" /dev/shm/$OPTRACE_NAMESPACE.* 2>/dev/null || true' EXIT
"$build/daemon/optraced" --db "$tmp/ops.db" --socket "$tmp/run/optraced.sock" 2>"$tmp/daemon.log" &
daemon=$!
until grep -q ' ready:' "$tmp/daemon.log"; do sleep 0.05; done
daemon_ticks() { awk '{print $14 + $15}' /proc/$daemon/stat; }
clients=()
if [ "$client" = cli ]; then
  tails=1
  /usr/bin/time -f "%U %S" -o "$tmp/time.1" "$build/cli/optrace" --socket "$tmp/run/optraced.sock" \
    tail --level=trace >"$tmp/out.1" &
  clients+=($!)
else
  for i in $(seq "$tails"); do
    /usr/bin/time -f "%U %S" -o "$tmp/time.$i" "$build/tests/bench/optrace-tail-latency" \
      "$tmp/run/optraced.sock" "$((seconds + 2))" events >"$tmp/out.$i" &
    clients+=($!)
  done
fi
sleep 0.5
before=$(daemon_ticks)
"$build/tests/bench/optrace-load" --threads 1 --rate "$rate" --seconds "$seconds" >/dev/null
after=$(daemon_ticks)
if [ "$client" = cli ]; then
  sleep 1
  kill -INT "${clients[0]}" 2>/dev/null || true
  pkill -INT -f "optrace --socket $tmp/run/optraced.sock tail" || true
fi
wait "${clients[@]}" 2>/dev/null || true
if [ "$client" = cli ]; then
  items=$(grep -c '^\[OP\]' "$tmp/out.1" || true)
  skipped=$(grep -c 'lagged' "$tmp/out.1" || true)
  skipped="$skipped lag lines"
else
  items=$(cat "$tmp"/out.* | sed -n 's/^events=\([0-9]*\) .*/\1/p' | awk '{n += 2 * $1} END {print n}')
  skipped=$(cat "$tmp"/out.* | sed -n 's/.* lags=\([0-9]*\).*/\1/p' | awk '{n += $1} END {print n}')
fi
client_s=$(cat "$tmp"/time.* | awk '{s += $1 + $2} END {print s}')
hz=$(getconf CLK_TCK)
/usr/bin/python3 - "$rate" "$seconds" "$tails" "$client" "$items" "$skipped" \
  "$(( after - before ))" "$hz" "$client_s" <<'PY'
import sys
rate, seconds, tails, client, items, skipped, ticks, hz, client_s = sys.argv[1:]
items = int(items)
daemon_s = int(ticks) / int(hz)
per = lambda s: s * 1e9 / items if items else float("nan")
print(f"rate={rate} seconds={seconds} tails={tails} client={client} items_delivered={items} "
      f"skipped={skipped} daemon_cpu_s={daemon_s:.2f} clients_cpu_s={float(client_s):.2f} "
      f"daemon_ns_per_item={per(daemon_s):.0f} clients_ns_per_item={per(float(client_s)):.0f}")
PY
