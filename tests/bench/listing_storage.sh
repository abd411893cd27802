#!/usr/bin/env bash
# Source listings: what a session with LOCATIONS distinct op sites stores
# (docs/BENCHMARKS.md, "Source listings"). The sites are real code: lines
# 10, 35, 60, ... of this checkout's own C++ sources (each 25 lines apart,
# so each is an excerpt of its own), one op each through
# optrace-test-producer --at, into a fresh optraced with its defaults.
# Prints the listings stored and capped, their text and their compressed
# bytes in the database, against the 1 MiB target.
#   tests/bench/listing_storage.sh [build dir] [locations]
set -euo pipefail
build=${1:-build}
locations=${2:-1000}
here=$(cd "$(dirname "$0")/../.." && pwd)

tmp=$(mktemp -d /tmp/optrace-listings.XXXXXX)
export OPTRACE_NAMESPACE=listings$$
trap 'kill $daemon 2>/dev/null || true; rm -rf "$tmp" /dev/shm/$OPTRACE_NAMESPACE.* 2>/dev/null || true' EXIT

"$build/daemon/optraced" --db "$tmp/ops.db" --socket "$tmp/run/optraced.sock" 2>"$tmp/daemon.log" &
daemon=$!
until grep -q ' ready:' "$tmp/daemon.log"; do sleep 0.05; done

args=()
count=0
while read -r file && [ "$count" -lt "$locations" ]; do
  lines=$(wc -l <"$file")
  for ((line = 10; line <= lines && count < locations; line += 25)); do
    args+=(--at "$file" "$line" site)
    count=$((count + 1))
  done
done < <(find "$here/daemon" "$here/client-lib" "$here/cli" "$here/tests/unit" -name '*.cc' | sort)

OPTRACE_LEVEL=trace "$build/tests/helpers/optrace-test-producer" --ops 1 "${args[@]}" >"$tmp/producer.out"
sleep 1  # the session's last batch
kill -TERM $daemon && wait $daemon || true
sqlite3 "$tmp/ops.db" "SELECT 'locations=$count listings=' || count(*) ||
  ' text_bytes=' || sum(text_bytes) || ' stored_bytes=' || sum(length(text_zlib)) ||
  ' stored_with_names=' || sum(length(text_zlib) + length(file)) FROM listings;
  SELECT 'capped=' || listings_capped || ' refused=' || listings_refused ||
  ' dropped=' || listings_dropped FROM sessions;"
