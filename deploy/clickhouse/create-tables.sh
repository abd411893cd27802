#!/usr/bin/env bash
# Creates optrace's span tables on ClickHouse servers by hand (optraced also
# creates them itself, on the server it forwards to): the same statements,
# from spans_table.sql and spans_distributed.sql next to this script.
#
#   create-tables.sh [--database optrace] [--table spans] [--cluster NAME]
#                    HOST[:PORT]...
#
# One server: create-tables.sh ch1. A cluster: list every server of it
# (ON CLUSTER would need ZooKeeper), e.g.
#   create-tables.sh --cluster fleet ch1 ch2 ch3
# Runs clickhouse-client (native port, default 9000) on each; add
# credentials with CLICKHOUSE_USER / CLICKHOUSE_PASSWORD.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
database=optrace
table=spans
cluster=
hosts=()
while [ $# -gt 0 ]; do
  case "$1" in
    --database) database="$2"; shift 2 ;;
    --table) table="$2"; shift 2 ;;
    --cluster) cluster="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) hosts+=("$1"); shift ;;
  esac
done
[ ${#hosts[@]} -gt 0 ] || { echo "create-tables.sh: give at least one HOST[:PORT]" >&2; exit 2; }
for name in "$database" "$table" ${cluster:+"$cluster"}; do
  [[ "$name" =~ ^[A-Za-z_][A-Za-z0-9_]{0,63}$ ]] ||
    { echo "create-tables.sh: '$name' is not a plain ClickHouse name" >&2; exit 2; }
done

local_table="$table"
files=("$here/spans_table.sql")
if [ -n "$cluster" ]; then
  local_table="${table}_local"
  files+=("$here/spans_distributed.sql")
fi

sql="$(sed -e "s/{database}/$database/g" -e "s/{local_table}/$local_table/g" \
  -e "s/{table}/$table/g" -e "s/{cluster}/$cluster/g" "${files[@]}")"

auth=()
[ -n "${CLICKHOUSE_USER:-}" ] && auth+=(--user "$CLICKHOUSE_USER")
[ -n "${CLICKHOUSE_PASSWORD:-}" ] && auth+=(--password "$CLICKHOUSE_PASSWORD")
for host in "${hosts[@]}"; do
  port=9000
  if [[ "$host" == *:* ]]; then port="${host##*:}"; host="${host%:*}"; fi
  echo "create-tables.sh: $host:$port: $database.$local_table${cluster:+ and $database.$table over $cluster}"
  printf '%s\n' "$sql" | clickhouse-client --host "$host" --port "$port" "${auth[@]}" \
    --multiquery --allow_experimental_low_cardinality_type=1
done
