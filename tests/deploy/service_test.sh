#!/usr/bin/env bash
# deploy.service: the installed optraced run as optraced.service runs it
# (user optrace, its two capabilities, NoNewPrivileges, UMask, Environment,
# runtime and state folders, ExecStart; see unit_prepare in deploy_lib.sh),
# with a site config that serves uid 65534 (allowed_uids). Checks:
#   - sd_notify: READY=1 with a status once serving, WATCHDOG=1 from the
#     drain loop, STOPPING=1 and exit 0 on SIGTERM (Type=notify, WatchdogSec=);
#   - the socket is 0660 optrace:optrace in a 0755 folder, the state
#     folder 0750 and the database, its -wal and -shm 0600 (group optrace
#     may connect, not read them);
#   - producers of an allowed uid are stored (their 0600 segment is opened
#     with CAP_DAC_OVERRIDE), the segment of one that crashed is removed
#     from the sticky /dev/shm (CAP_FOWNER), producers of other uids are
#     refused;
#   - the peer-credential rules: another uid cannot even connect; in group
#     optrace (or given access to the socket) it sees nothing and may change
#     nothing; the producer's own uid sees its session; the admin group
#     (optrace-admin) sees everything.
TEST_NAME=service
source "$(dirname "$0")/deploy_lib.sh"
require_stage
ensure_unit_user
: "${OPTRACE_TEST_CLIENT:?}" "${OPTRACE_TEST_PRODUCER:?}"

user="$(unit_value User)"
group="$(unit_value Group)"
gid="$(getent group "$group" | cut -d: -f3)"
other_uid=65534   # the traced user (allowed_uids)
stranger_uid=65533  # a uid with no rights at all
cli="$PREFIX/bin/optrace"
[ -x "$cli" ] || skip "the optrace CLI is not installed in the stage (cli/ not built yet)"

step "site config: the installed file plus allowed_uids = [$other_uid]"
mkdir -p "$T/etc/optrace"
cp "$PREFIX/etc/optrace/optraced.toml" "$T/etc/optrace/optraced.toml"
echo "allowed_uids = [$other_uid]" >>"$T/etc/optrace/optraced.toml"
chmod 0644 "$T/etc/optrace/optraced.toml"

step "start optraced as the unit does, with systemd's notify socket"
python3 "$DEPLOY_TOOL" notify-sink "$T/notify.sock" "$T/notify.log" &
track $!
for _ in $(seq 1 50); do [ -S "$T/notify.sock" ] && break; sleep 0.1; done
UNIT_EXTRA_ENV=("NOTIFY_SOCKET=$T/notify.sock" "WATCHDOG_USEC=2000000")
unit_prepare "$T/root" "$T/etc/optrace/optraced.toml"
echo "${UNIT_CMD[*]}"
(umask "$UNIT_UMASK"; exec "${UNIT_CMD[@]}") >"$T/daemon.log" 2>&1 &
daemon=$!
track "$daemon"
wait_ready "$T/daemon.log" "$UNIT_SOCKET" "$daemon"
[ "$(awk '/^Uid:/ {print $3}' "/proc/$daemon/status")" = "$(id -u "$user")" ] \
  || fail "the daemon does not run as $user"
grep -q '^CapEff:.*000000000000000a$' "/proc/$daemon/status" \
  || { grep Cap "/proc/$daemon/status"; fail "the daemon should hold exactly CAP_DAC_OVERRIDE and CAP_FOWNER"; }
for _ in $(seq 1 50); do grep -q '^READY=1' "$T/notify.log" 2>/dev/null && break; sleep 0.1; done
grep -q '^READY=1|STATUS=serving namespace' "$T/notify.log" \
  || { cat "$T/notify.log"; fail "no READY=1 with a status on the notify socket"; }

step "socket, runtime and state folders"
perm() { stat -c '%a %U %G' "$1"; }
[ "$(perm "$UNIT_SOCKET")" = "660 $user $group" ] || fail "socket is $(perm "$UNIT_SOCKET")"
[ "$(perm "$(dirname "$UNIT_SOCKET")")" = "755 $user $group" ] \
  || fail "runtime folder is $(perm "$(dirname "$UNIT_SOCKET")")"
[ "$(perm "$UNIT_STATE")" = "750 $user $group" ] || fail "state folder is $(perm "$UNIT_STATE")"
db="$UNIT_STATE/optrace.db"
[ -f "$db" ] || { ls -la "$UNIT_STATE"; fail "no database at $db (XDG_STATE_HOME from the unit)"; }
db_perm="$(perm "$db")"
# Members of group optrace may connect; the files would show them every
# user's sessions, so they are the daemon's alone whatever UMask says.
for f in "$db" "$db-wal" "$db-shm"; do
  [ "$(perm "$f")" = "600 $user $group" ] \
    || fail "$f is $(perm "$f") (UMask=$UNIT_UMASK), expected 600 $user $group"
done
echo "socket $(perm "$UNIT_SOCKET"), state $(perm "$UNIT_STATE"), db $db_perm"

step "a producer of an allowed uid ($other_uid) is stored"
traced_producer_of "$other_uid" deploy-svc-other "$T/daemon.log"
stored_session "$UNIT_SOCKET" "$db" deploy-svc-other
echo "uid $other_uid: spans=$STORED_SPANS state=$STORED_STATE"
if [ "$STORED_SPANS" != 41 ] || [ "$STORED_STATE" != exited ]; then
  fail "expected an exited session with 41 spans"
fi
other_session="$STORED_ID"

step "a crashed producer's segment is removed from /dev/shm (CAP_FOWNER)"
(ulimit -c 0; run_as "$other_uid" deploy-svc-crash "$PREFIX/bin/optrace-demo" --steps 2 \
   --layers 1 --hidden 32 --batch 2 --crash-after 3 >/dev/null 2>&1) && fail "--crash-after should crash"
stored_session "$UNIT_SOCKET" "$db" deploy-svc-crash
[ "$STORED_STATE" = crashed ] || fail "expected state crashed, got $STORED_STATE"
for _ in $(seq 1 50); do
  compgen -G "/dev/shm/$NS.$other_uid.*" >/dev/null || break
  sleep 0.1
done
if compgen -G "/dev/shm/$NS.$other_uid.*" >/dev/null; then
  ls -la /dev/shm/"$NS".*
  fail "the crashed producer's segment was not removed"
fi

step "a producer of another uid (root) is refused"
(cd / && exec env OPTRACE_NAMESPACE="$NS" OPTRACE_SESSION=deploy-svc-root OPTRACE_LEVEL=trace \
   "$OPTRACE_TEST_PRODUCER" --ops 10 --forever) >"$T/root-producer.log" 2>&1 &
root_producer=$!
track "$root_producer"
for _ in $(seq 1 100); do grep -q 'which this daemon does not serve' "$T/daemon.log" && break; sleep 0.1; done
grep -q 'belongs to uid 0, which this daemon does not serve' "$T/daemon.log" \
  || { cat "$T/daemon.log"; fail "the root producer's segment was not refused"; }
"$cli" --socket "$UNIT_SOCKET" sessions --all --json >"$T/all.json"
[ -z "$(python3 "$DEPLOY_TOOL" session "$T/all.json" deploy-svc-root)" ] \
  || fail "a session of the refused uid was stored"
kill -TERM "$root_producer"

step "peer credentials"
probe() {  # probe SETPRIV_ARGS...: prints "<list code>:<seen> <get code> <set code>"
  setpriv "$@" -- "$STAGED_TEST_CLIENT" probe "$UNIT_SOCKET" "$other_session" 2>/dev/null
}
expect_probe() {
  local want="$1" what="$2"; shift 2
  local got
  got="$(probe "$@")"
  [ "$got" = "$want" ] || fail "$what: probe says '$got', expected '$want'"
  echo "$what: $got"
}
# gRPC codes: 0 OK, 7 PERMISSION_DENIED, 14 UNAVAILABLE.
expect_probe "14:0 14 14" "uid $stranger_uid, socket 0660" \
  --reuid=$stranger_uid --regid=$stranger_uid --clear-groups
expect_probe "0:0 7 7" "uid $stranger_uid in group $group (may connect, not admin)" \
  --reuid=$stranger_uid --regid="$gid" --clear-groups
if admin_gid="$(getent group optrace-admin | cut -d: -f3)" && [ -n "$admin_gid" ]; then
  expect_probe "0:2 0 0" "uid $stranger_uid in groups optrace-admin and $group (admin)" \
    --reuid=$stranger_uid --regid="$admin_gid" --groups="$gid"
else
  echo "no group optrace-admin on this machine (user $user existed before): admin probe not run"
fi
chmod 0666 "$UNIT_SOCKET"  # as an administrator widening access would
expect_probe "0:0 7 7" "uid $stranger_uid given the socket" \
  --reuid=$stranger_uid --regid=$stranger_uid --clear-groups
expect_probe "0:2 0 7" "uid $other_uid (owner of the sessions)" \
  --reuid=$other_uid --regid=$other_uid --clear-groups
chmod 0660 "$UNIT_SOCKET"

step "watchdog and stop"
for _ in $(seq 1 40); do grep -q '^WATCHDOG=1' "$T/notify.log" && break; sleep 0.1; done
grep -q '^WATCHDOG=1' "$T/notify.log" || { cat "$T/notify.log"; fail "no WATCHDOG=1 within 4 s (WATCHDOG_USEC=2 s)"; }
stop_daemon "$daemon" "$T/daemon.log"
grep -q '^STOPPING=1' "$T/notify.log" || { cat "$T/notify.log"; fail "no STOPPING=1"; }
echo "notify messages: $(cut -d'|' -f1 "$T/notify.log" | sort | uniq -c | tr -s ' \n' ' ')"
