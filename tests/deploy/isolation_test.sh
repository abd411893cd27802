#!/usr/bin/env bash
# deploy.isolation (issue 16 item 9): connecting is not seeing everyone.
# Real users created here: alice and bob in the socket's group, carol also
# in the admin group, dave in neither. A root optraced (which serves every
# uid) with socket_group and admin_group set to this test's groups, over
# its real socket. Checks:
#   - the socket is 0660 root:<socket group>; dave cannot connect;
#   - alice sees and uses her own sessions (list, show, ops, stats, diff,
#     export) and nothing of bob's: each of those on bob's session, a tail
#     of it, a level for his running producer's pid, the global level, a
#     level by label and a fleet query are PERMISSION_DENIED with a message
#     naming the admin group;
#   - carol (admin group) and root see bob's sessions and may set the
#     global level.
# The binaries alice runs are copied into a 0755 folder, so the test
# passes from a checkout other users cannot enter.
TEST_NAME=isolation
source "$(dirname "$0")/deploy_lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to create users and run as them"
for tool in useradd userdel groupadd groupdel setpriv ldd; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done
: "${OPTRACED:?}" "${OPTRACE_CLI:?}" "${OPTRACE_TEST_PRODUCER:?}"
# The system's Python starts in a tenth of the time of a version manager's
# shim, and the test calls it often.
py="$(command -v /usr/bin/python3 || command -v python3)"

# Names of this run only: other tests (and other runs) use their own.
users_group="optrace-t-users-$$"
admin_group="optrace-t-admins-$$"
alice="optrace-t-alice-$$"
bob="optrace-t-bob-$$"
carol="optrace-t-carol-$$"
dave="optrace-t-dave-$$"

step "users and groups"
add_test_group "$users_group"
add_test_group "$admin_group"
add_test_user "$alice" "$users_group"
add_test_user "$bob" "$users_group"
add_test_user "$carol" "$users_group,$admin_group"
add_test_user "$dave"
id "$alice"; id "$carol"

step "stage the binaries where the users can reach them"
bin="$T/bin"
mkdir -m 0755 "$bin"
cp "$OPTRACE_CLI" "$bin/optrace"
cp "$OPTRACE_TEST_PRODUCER" "$bin/optrace-test-producer"
liboptrace="$(ldd "$OPTRACE_TEST_PRODUCER" | awk '/liboptrace\.so/ {print $3}')"
[ -n "$liboptrace" ] && cp "$liboptrace" "$bin/"
chmod 0755 "$bin"/*
out="$T/out"  # where the users write their exports
mkdir -m 1777 "$out"

# as USER CMD...: runs CMD as USER with the groups /etc/group gives it.
as() {
  local user="$1"; shift
  (cd / && exec setpriv --reuid="$user" --regid="$user" --init-groups -- env -i \
    PATH=/usr/bin:/bin HOME=/ OPTRACE_NAMESPACE="$NS" LD_LIBRARY_PATH="$bin" "$@")
}

step "a root optraced with socket_group $users_group and admin_group $admin_group"
mkdir -m 0755 "$T/run"
cat >"$T/optraced.toml" <<EOF
socket = "$T/run/optraced.sock"
db = "$T/state/optrace.db"
namespace = "$NS"
socket_group = "$users_group"
admin_group = "$admin_group"
EOF
socket="$T/run/optraced.sock"
"$OPTRACED" --config "$T/optraced.toml" >"$T/daemon.log" 2>&1 &
daemon=$!
track "$daemon"
wait_ready "$T/daemon.log" "$socket" "$daemon"
perm="$(stat -c '%a %U %G' "$socket")"
[ "$perm" = "660 root $users_group" ] || fail "socket is $perm, expected 660 root $users_group"
echo "socket $perm"

step "sessions of alice (two) and bob (one ended, one running)"
produce() {  # produce USER LABEL
  as "$1" env OPTRACE_SESSION="$2" OPTRACE_LEVEL=trace "$bin/optrace-test-producer" --ops 20 \
    >"$T/producer-$2.log" 2>&1 || { cat "$T/producer-$2.log"; fail "producer $2 failed"; }
}
produce "$alice" t-alice-1
produce "$alice" t-alice-2
produce "$bob" t-bob-1
# One process from fork to exit (exec), so that the cleanup's kill reaches it.
(cd / && exec setpriv --reuid="$bob" --regid="$bob" --init-groups -- env -i PATH=/usr/bin:/bin \
   OPTRACE_NAMESPACE="$NS" OPTRACE_SESSION=t-bob-live OPTRACE_LEVEL=trace \
   LD_LIBRARY_PATH="$bin" "$bin/optrace-test-producer" --ops 10 --forever) \
  >"$T/producer-t-bob-live.log" 2>&1 &
track $!

# stored_id LABEL [STATE]: the id of the session LABEL once root's listing
# shows it (ended, or running with STATE=running); waits 20 s at most.
stored_id() {
  local label="$1" want="${2:-ended}" id="" state line
  for _ in $(seq 1 100); do
    "$OPTRACE_CLI" --socket "$socket" sessions --all --json >"$T/root-sessions.json"
    line="$("$py" "$DEPLOY_TOOL" session "$T/root-sessions.json" "$label")"
    [ -n "$line" ] && read -r id _ state <<<"$line"
    if [ -n "${id:-}" ] && { [ "$want" = running ] || [ "$state" != running ]; }; then
      echo "$id"
      return 0
    fi
    sleep 0.2
  done
  cat "$T/daemon.log" >&2
  fail "no $want session labelled $label after 20 s"
}
alice1="$(stored_id t-alice-1)"
alice2="$(stored_id t-alice-2)"
bob1="$(stored_id t-bob-1)"
bob_live="$(stored_id t-bob-live running)"
bob_pid="$("$py" -c 'import json,sys
for s in json.load(open(sys.argv[1]))["sessions"]:
    if s.get("label") == "t-bob-live": print(s["pid"])' "$T/root-sessions.json" | head -1)"
[ -n "$bob_pid" ] || { cat "$T/root-sessions.json"; fail "no pid for bob's live session"; }
echo "alice: $alice1 $alice2; bob: $bob1, live $bob_live (pid $bob_pid)"

step "dave (not in $users_group) cannot connect"
if as "$dave" "$bin/optrace" --socket "$socket" sessions >"$T/dave.out" 2>&1; then
  cat "$T/dave.out"
  fail "dave reached the daemon without group $users_group"
fi

step "alice sees her own sessions only"
as "$alice" "$bin/optrace" --socket "$socket" sessions --all --json >"$T/alice-sessions.json"
for label in t-alice-1 t-alice-2; do
  [ -n "$("$py" "$DEPLOY_TOOL" session "$T/alice-sessions.json" "$label")" ] \
    || { cat "$T/alice-sessions.json"; fail "alice does not see her session $label"; }
done
for label in t-bob-1 t-bob-live; do
  [ -z "$("$py" "$DEPLOY_TOOL" session "$T/alice-sessions.json" "$label")" ] \
    || { cat "$T/alice-sessions.json"; fail "alice sees bob's session $label"; }
done
for cmd in "sessions show $alice1" "ops $alice1" "stats $alice1" "diff $alice1 $alice2" \
           "export $alice1 --format chrome -o $out/alice.json" "status"; do
  # shellcheck disable=SC2086
  as "$alice" "$bin/optrace" --socket "$socket" $cmd >"$T/alice.out" 2>&1 \
    || { cat "$T/alice.out"; fail "alice: optrace $cmd failed on her own session"; }
done
[ -s "$out/alice.json" ] || fail "alice's export of her own session is empty"

step "alice is refused bob's sessions, his producer and the global level"
denied() {  # denied WHAT ARGS...: alice runs optrace ARGS; it must fail naming the admin group
  local what="$1"; shift
  if as "$alice" timeout 20 "$bin/optrace" --socket "$socket" "$@" >"$T/denied.out" 2>&1; then
    cat "$T/denied.out"
    fail "alice was allowed $what"
  fi
  grep -q "not allowed: .*needs membership of group $admin_group" "$T/denied.out" \
    || { cat "$T/denied.out"; fail "alice's refusal of $what does not name group $admin_group"; }
  echo "$what: $(cat "$T/denied.out")"
}
denied "bob's session" sessions show "$bob1"
denied "bob's ops" ops "$bob1"
denied "bob's stats" stats "$bob1"
denied "a diff against bob's session" diff "$alice1" "$bob1"
denied "an export of bob's session" export "$bob1" --format chrome -o "$out/bob.json"
denied "a tail of bob's session" tail --session "$bob_live"
denied "a level for bob's pid" level set trace --pid "$bob_pid"
denied "the global level" level set trace
denied "a level by label" level set trace --label t-bob-live
denied "a fleet query" stats --fleet
[ ! -s "$out/bob.json" ] || fail "alice's refused export wrote bob's spans"
as "$alice" "$bin/optrace" --socket "$socket" level get --json >"$T/alice-level.json"
"$py" - "$T/alice-level.json" "$bob_live" <<'EOF' || fail "alice's level listing shows bob's producer"
import json, sys
levels = json.load(open(sys.argv[1]))
producers = levels.get("producers", [])
sys.exit(any(str(p.get("session_id")) == sys.argv[2] for p in producers))
EOF

step "carol ($admin_group) and root see and control everyone"
as "$carol" "$bin/optrace" --socket "$socket" sessions --all --json >"$T/carol-sessions.json"
[ -n "$("$py" "$DEPLOY_TOOL" session "$T/carol-sessions.json" t-bob-1)" ] \
  || { cat "$T/carol-sessions.json"; fail "carol does not see bob's session"; }
as "$carol" "$bin/optrace" --socket "$socket" stats "$bob1" >"$T/carol.out" 2>&1 \
  || { cat "$T/carol.out"; fail "carol: optrace stats of bob's session failed"; }
as "$carol" "$bin/optrace" --socket "$socket" level set trace >"$T/carol.out" 2>&1 \
  || { cat "$T/carol.out"; fail "carol could not set the global level"; }
as "$carol" "$bin/optrace" --socket "$socket" level set --clear >"$T/carol.out" 2>&1 \
  || { cat "$T/carol.out"; fail "carol could not clear the global level"; }
"$OPTRACE_CLI" --socket "$socket" export "$bob1" --format chrome -o "$out/root-bob.json" \
  || fail "root could not export bob's session"
[ -s "$out/root-bob.json" ] || fail "root's export of bob's session is empty"

step "stop"
stop_daemon "$daemon" "$T/daemon.log"
