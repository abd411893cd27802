#!/usr/bin/env bash
# deploy.syscalls: the unit's seccomp and address-family sandbox fits what
# optraced really does. Without systemd as PID 1 the sandbox cannot be
# applied here, so the daemon runs as the unit runs it under strace through
# a representative session (producer, queries, a live tail, reload, stop),
# and every system call it made is checked against the unit's
# SystemCallFilter= (expanded by systemd-analyze), every socket against
# RestrictAddressFamilies=, every mapping against MemoryDenyWriteExecute=,
# every /proc file against ProcSubset= and every write against
# ProtectSystem=strict (and ProtectHome=). A call outside the filter would kill the service
# with EPERM errors in production, not in a test.
TEST_NAME=syscalls
source "$(dirname "$0")/deploy_lib.sh"
require_stage
command -v strace >/dev/null || skip "strace is not installed"
command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed (package systemd)"
systemd-analyze syscall-filter @system-service >/dev/null 2>&1 \
  || skip "systemd-analyze syscall-filter does not work here"
strace -f -qq -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace not permitted)"
ensure_unit_user
cli="$PREFIX/bin/optrace"
[ -x "$cli" ] || skip "the optrace CLI is not installed in the stage (cli/ not built yet)"

mkdir -p "$T/etc/optrace"
cp "$PREFIX/etc/optrace/optraced.toml" "$T/etc/optrace/optraced.toml"
echo "allowed_uids = [65534]" >>"$T/etc/optrace/optraced.toml"
chmod 0644 "$T/etc/optrace/optraced.toml"
UNIT_EXTRA_ENV=("WATCHDOG_USEC=2000000" "NOTIFY_SOCKET=$T/notify.sock")
python3 "$DEPLOY_TOOL" notify-sink "$T/notify.sock" "$T/notify.log" &
track $!
for _ in $(seq 1 50); do [ -S "$T/notify.sock" ] && break; sleep 0.1; done
unit_prepare "$T/root" "$T/etc/optrace/optraced.toml"

step "optraced under strace, as the unit runs it"
(umask "$UNIT_UMASK"; exec strace -f -qq -s 96 -o "$T/strace.log" "${UNIT_CMD[@]}") \
  >"$T/daemon.log" 2>&1 &
tracer=$!
track "$tracer"
daemon=""
for _ in $(seq 1 100); do
  daemon="$(pgrep -P "$tracer" -x optraced || true)"
  [ -n "$daemon" ] && break
  sleep 0.1
done
[ -n "$daemon" ] || { cat "$T/daemon.log"; fail "optraced did not start under strace"; }
wait_ready "$T/daemon.log" "$UNIT_SOCKET" "$daemon"

step "a session: producer, queries, live tail, reload"
timeout 20 "$cli" --socket "$UNIT_SOCKET" tail --level trace >"$T/tail.log" 2>&1 &
tail_pid=$!
sleep 0.5
traced_producer_of 65534 deploy-syscalls "$T/daemon.log"
stored_session "$UNIT_SOCKET" "$T/none.db" deploy-syscalls
[ "$STORED_SPANS" -gt 0 ] || fail "nothing stored"
session="$STORED_ID"
"$cli" --socket "$UNIT_SOCKET" stats "$session" >/dev/null
"$cli" --socket "$UNIT_SOCKET" status >/dev/null
"$cli" --socket "$UNIT_SOCKET" export "$session" --format chrome -o "$T/export.json"
"$cli" --socket "$UNIT_SOCKET" level set debug >/dev/null
kill -TERM "$tail_pid" 2>/dev/null || true
wait "$tail_pid" 2>/dev/null || true
echo "the tail printed $(grep -c 'LAUNCH' "$T/tail.log" || true) LAUNCH lines"
kill -HUP "$daemon"
for _ in $(seq 1 50); do grep -q 'reloaded config' "$T/daemon.log" && break; sleep 0.1; done
grep -q 'reloaded config' "$T/daemon.log" || fail "SIGHUP did not reload"
sleep 2.5  # watchdog pings while idle
kill -TERM "$daemon"
rc=0
wait "$tracer" || rc=$?
[ "$rc" -eq 0 ] || { cat "$T/daemon.log"; fail "optraced under strace exited $rc"; }

step "every call fits the unit's sandbox"
python3 "$DEPLOY_TOOL" syscall-check "$UNIT" "$T/strace.log" "$PREFIX/sbin/optraced" "$T/root"
