#!/usr/bin/env bash
# GetStats by name on bench_queries' 10-million-span session beside
# ClickHouse's quantilesExact by name over the same spans, in one run:
#   tests/bench/stats_vs_clickhouse.sh [BUILD_DIR] [RUNS]
# 1. bench_queries writes its database (OPTRACE_BENCH_DB) and a private
#    optraced serves it (its own namespace and socket, retention off);
# 2. `optrace export 1 --format csv` is loaded into a private
#    clickhouse-server (loopback, free ports, everything under one
#    temporary folder) as a MergeTree table;
# 3. the two queries run RUNS times each, alternating, and the medians are
#    printed: the wall time of the client process for both
#    (`optrace stats 1 --by name --top 0 --json`, `clickhouse-client --query`),
#    and ClickHouse's own elapsed time (clickhouse-client --time).
# Both compute count, sum, min, max and the exact p50/p95/p99 of the OK
# spans' durations per name; the script checks that the answers agree.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
runs=${2:-5}
py=/usr/bin/python3
work=$(mktemp -d /tmp/optrace-stats-ch.XXXXXX)
optraced_pid=""
ch_pid=""
cleanup() {
  [ -n "$optraced_pid" ] && kill "$optraced_pid" 2>/dev/null || true
  [ -n "$ch_pid" ] && kill "$ch_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { $py -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
now_ns() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "building the 10M-span database (bench_queries)..." >&2
OPTRACE_BENCH_DB="$work/trace.db" "$build/tests/bench/bench_queries" \
  --benchmark_filter='BM_CompareSessions' --benchmark_min_time=0.01 >/dev/null

export OPTRACE_NAMESPACE="statsch$$"
export OPTRACE_SOCKET="$work/optraced.sock"
"$build/daemon/optraced" --foreground --socket "$OPTRACE_SOCKET" --db "$work/trace.db" \
  --namespace "$OPTRACE_NAMESPACE" --retention-max-bytes 0 --retention-max-age 0 \
  2>"$work/optraced.log" &
optraced_pid=$!
optrace="$build/cli/optrace"
for _ in $(seq 100); do "$optrace" status >/dev/null 2>&1 && break; sleep 0.1; done

http=$(free_port); tcp=$(free_port); inter=$(free_port)
mkdir -p "$work/ch/data" "$work/ch/tmp" "$work/ch/log" "$work/ch/user_files"
cat >"$work/ch/users.xml" <<EOF
<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>8000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
EOF
cat >"$work/ch/config.xml" <<EOF
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$work/ch/log/server.log</log>
    <errorlog>$work/ch/log/error.log</errorlog><size>10M</size><count>1</count></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>$http</http_port><tcp_port>$tcp</tcp_port>
  <interserver_http_port>$inter</interserver_http_port>
  <path>$work/ch/data/</path><tmp_path>$work/ch/tmp/</tmp_path>
  <user_files_path>$work/ch/user_files/</user_files_path>
  <users_config>$work/ch/users.xml</users_config>
  <default_profile>default</default_profile><default_database>default</default_database>
  <mark_cache_size>5368709120</mark_cache_size>
</yandex>
EOF
clickhouse-server --config-file="$work/ch/config.xml" >"$work/ch/stdout" 2>&1 &
ch_pid=$!
ch() { clickhouse-client --host 127.0.0.1 --port "$tcp" "$@"; }
for _ in $(seq 200); do ch --query 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.1; done

echo "loading the same spans into ClickHouse..." >&2
ch --query "CREATE TABLE spans (session_id UInt64, op_id UInt64, parent_op_id UInt64,
  name String, tag String, source_location String, target String, device UInt16,
  stream UInt32, start_unix_ns Int64, duration_ns UInt64, device_duration_ns UInt64,
  launch_thread UInt32, complete_thread UInt32, status String)
  ENGINE = MergeTree() ORDER BY (session_id, start_unix_ns)"
"$optrace" export 1 --format csv -o "$work/spans.csv" >&2
ch --query 'INSERT INTO spans FORMAT CSVWithNames' <"$work/spans.csv"
rm "$work/spans.csv"
ch --query 'OPTIMIZE TABLE spans FINAL'
echo "rows in ClickHouse: $(ch --query 'SELECT count() FROM spans')" >&2

query="SELECT name, count(), sum(duration_ns), min(duration_ns), max(duration_ns),
  quantilesExact(0.5, 0.95, 0.99)(duration_ns) FROM spans
  WHERE session_id = 1 AND status = 'ok' GROUP BY name ORDER BY name"

# The answers agree, per name: count, total, min, max, and p50/p95/p99 by
# nearest rank computed in ClickHouse from the sorted durations (element
# ceil(p * n / 100), 1-based). quantilesExact itself takes element
# floor(p * n) + 1 instead, one rank higher where p * n is a whole number;
# the script counts the groups where that makes it differ.
"$optrace" stats 1 --by name --top 0 --json >"$work/optrace.json"
ch --query "SELECT name, c, s, mn, mx, [p50, p95, p99] FROM (
  SELECT name, count() AS c, sum(duration_ns) AS s, min(duration_ns) AS mn,
    max(duration_ns) AS mx, arraySort(groupArray(duration_ns)) AS sorted,
    sorted[intDiv(c * 50 + 99, 100)] AS p50, sorted[intDiv(c * 95 + 99, 100)] AS p95,
    sorted[intDiv(c * 99 + 99, 100)] AS p99
  FROM spans WHERE session_id = 1 AND status = 'ok' GROUP BY name) ORDER BY name
  FORMAT JSONCompact" >"$work/nearest_rank.json"
ch --query "$query FORMAT JSONCompact" >"$work/quantiles_exact.json"
$py - "$work/optrace.json" "$work/nearest_rank.json" "$work/quantiles_exact.json" <<'EOF'
import json, sys
def num(v): return int(v) if not isinstance(v, float) else int(round(v))
def rows(path): return {r[0]: (num(r[1]), num(r[2]), num(r[3]), num(r[4]), *map(num, r[5]))
                        for r in json.load(open(path))["data"]}
mine = {r["key"]: (num(r["ok_count"]), num(r["total_ns"]), num(r["min_ns"]), num(r["max_ns"]),
                   num(r["p50_ns"]), num(r["p95_ns"]), num(r["p99_ns"]))
        for r in json.load(open(sys.argv[1]))["rows"]}
nearest, exact = rows(sys.argv[2]), rows(sys.argv[3])
if mine != nearest:
    sys.exit("optrace and ClickHouse disagree: %d and %d groups, first differences %s"
             % (len(mine), len(nearest), [(k, mine.get(k), nearest.get(k))
                for k in sorted(set(mine) | set(nearest)) if mine.get(k) != nearest.get(k)][:3]))
print("answers agree on %d groups; quantilesExact differs from nearest rank in %d of them"
      % (len(mine), sum(exact[k] != nearest[k] for k in nearest)), file=sys.stderr)
EOF

: >"$work/optrace.ms"; : >"$work/ch_wall.ms"; : >"$work/ch_server.ms"
for _ in $(seq "$runs"); do
  t0=$(now_ns); "$optrace" stats 1 --by name --top 0 --json >/dev/null; t1=$(now_ns)
  echo $(( (t1 - t0) / 1000000 )) >>"$work/optrace.ms"
  t0=$(now_ns); ch --time --query "$query FORMAT Null" 2>"$work/ch_time"; t1=$(now_ns)
  echo $(( (t1 - t0) / 1000000 )) >>"$work/ch_wall.ms"
  awk '{ printf "%d\n", $1 * 1000 }' "$work/ch_time" >>"$work/ch_server.ms"
done
echo "GetStats by name, 10M spans, median of $runs (load average $(cut -d' ' -f1 /proc/loadavg)):"
echo "  optrace stats 1 --by name --top 0    $(median <"$work/optrace.ms") ms (client wall)"
echo "  ClickHouse quantilesExact by name    $(median <"$work/ch_wall.ms") ms (client wall), $(median <"$work/ch_server.ms") ms (server elapsed)"
