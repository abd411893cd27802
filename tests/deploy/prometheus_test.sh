#!/usr/bin/env bash
# The shipped Prometheus files (deploy/prometheus/): promtool accepts the
# scrape config (with its token file present, as on a real host) and the
# alert rules. Skipped (77) without promtool.
set -euo pipefail
src="${OPTRACE_SOURCE_DIR:?}"
if ! command -v promtool >/dev/null; then
  echo "SKIP: promtool is not installed (Debian package prometheus)"
  exit 77
fi
T=$(mktemp -d /tmp/optrace-prometheus-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

promtool check rules "$src/deploy/prometheus/optrace-alerts.yml" || fail "alert rules rejected"
# The config names /etc/prometheus/optrace-token: check a copy that points
# at a token file of ours, so that promtool also checks the file's use.
echo token >"$T/optrace-token"
chmod 0600 "$T/optrace-token"
sed "s|/etc/prometheus/optrace-token|$T/optrace-token|" \
  "$src/deploy/prometheus/prometheus.yml" >"$T/prometheus.yml"
cp "$src/deploy/prometheus/optrace-alerts.yml" "$T/"
promtool check config "$T/prometheus.yml" || fail "scrape config rejected"

echo "prometheus files: ok"
