#!/usr/bin/env bash
# deploy.config: the installed /etc/optrace/optraced.toml loads cleanly as
# shipped (every key commented) and with every commented key switched on
# (so each commented default is a valid value); and it documents every key
# the daemon accepts (the daemon's own list, from its unknown-key error).
TEST_NAME=config
source "$(dirname "$0")/deploy_lib.sh"
require_stage

optraced="$PREFIX/sbin/optraced"
config="$PREFIX/etc/optrace/optraced.toml"

# run_with CONFIG: starts the staged daemon with CONFIG (socket, db and
# namespace of this test given as flags, which win over the file), waits
# until it is ready, stops it.
run_with() {
  local conf="$1" log
  log="$T/daemon-$(basename "$1").log"
  "$optraced" --config "$conf" --socket "$T/run/optraced.sock" --db "$T/state/optrace.db" \
    --namespace "$NS" >"$log" 2>&1 &
  local pid=$!
  track "$pid"
  wait_ready "$log" "$T/run/optraced.sock" "$pid"
  stop_daemon "$pid" "$log"
}

step "the config as installed"
run_with "$config"

step "every commented key switched on"
# '#key = value' and '#[[table]]' lines are settings; '# text' is prose.
sed -E 's/^#([A-Za-z_[])/\1/' "$config" >"$T/all-on.toml"
grep -Ev '^(#|$)' "$T/all-on.toml"
run_with "$T/all-on.toml"

step "every key the daemon knows is documented"
printf 'no_such_key = 1\n' >"$T/unknown.toml"
rc=0
"$optraced" --config "$T/unknown.toml" --socket "$T/run/x.sock" --db "$T/state/x.db" \
  --namespace "$NS" >"$T/unknown.log" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { cat "$T/unknown.log"; fail "an unknown key should exit 2, got $rc"; }
known="$(sed -n 's/.*(known: \([^)]*\)).*/\1/p' "$T/unknown.log" | tr -d ',')"
[ -n "$known" ] || { cat "$T/unknown.log"; fail "the daemon's error does not list the known keys"; }
missing=()
for key in $known; do
  grep -Eq "^#?(${key} *=|\[\[${key}\]\])" "$config" || missing+=("$key")
done
[ ${#missing[@]} -eq 0 ] || fail "keys missing from deploy/optraced.toml: ${missing[*]}"
echo "all documented: $known"
