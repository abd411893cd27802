# shellcheck shell=bash
# Helpers of the deploy tests, sourced by each test script after it sets
# TEST_NAME. Every test works in its own temp folder, which is removed at
# exit together with every process the test started (OPTRACE_DEPLOY_KEEP=1
# keeps the folder for a post-mortem). Exit 77 means skipped (ctest
# SKIP_RETURN_CODE), with the reason printed.
#
# From ctest (tests/deploy/CMakeLists.txt): OPTRACE_SOURCE_DIR,
# OPTRACE_BUILD_DIR, OPTRACE_STAGE (a link to the staged install of
# deploy.stage), OPTRACE_TEST_CLIENT, OPTRACE_TEST_PRODUCER, CMAKE_COMMAND,
# CPACK_COMMAND, CMAKE_GENERATOR, CMAKE_MAKE_PROGRAM, CC, CXX.
set -euo pipefail

: "${TEST_NAME:?set TEST_NAME before sourcing deploy_lib.sh}"
: "${OPTRACE_SOURCE_DIR:?}" "${OPTRACE_BUILD_DIR:?}" "${OPTRACE_STAGE:?}"
# The tests run the staged programs as other uids (the unit's user, 65534),
# which may not pass through the checkout (a private one is 0700, like any
# checkout under /root). So deploy.stage installs outside it, in a folder
# under /tmp that every uid can reach, and points $OPTRACE_STAGE at it:
# STAGE is that folder, PREFIX the install in it, and STAGED_TEST_PRODUCER
# and STAGED_TEST_CLIENT the copies of the test programs other uids run.
locate_stage() {
  STAGE="$(readlink -f "$OPTRACE_STAGE" || echo "$OPTRACE_STAGE")"
  PREFIX="$STAGE/prefix"
  STAGED_TEST_PRODUCER="$STAGE/test-bin/optrace-test-producer"
  STAGED_TEST_CLIENT="$STAGE/test-bin/optrace-test-client"
}
locate_stage
DEPLOY_TOOL="$OPTRACE_SOURCE_DIR/tests/deploy/deploy_tool.py"
# A namespace of our own: other tests and daemons run side by side.
NS="deploy_${TEST_NAME}_$$"

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

_started_pids=()
T="$(mktemp -d /tmp/optrace-deploy.XXXXXX)"
chmod 0755 "$T"  # other uids (the daemon's user, probes) pass through it

_cleanup() {
  local rc=$?
  for pid in "${_started_pids[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${_started_pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  # Segments of our namespace a killed process may have left behind.
  rm -f /dev/shm/"$NS".* 2>/dev/null || true
  remove_created_user
  _remove_test_accounts
  if [ "${OPTRACE_DEPLOY_KEEP:-0}" = 1 ]; then
    echo "kept $T"
  else
    rm -rf "$T"
  fi
  exit "$rc"
}
trap _cleanup EXIT

# Registers a background process for cleanup: track PID
track() { _started_pids+=("$1"); }

# The folder holding the staged liboptrace.so.0 (lib or a multiarch lib/<triplet>).
staged_libdir() {
  local so
  so="$(find "$PREFIX" -name 'liboptrace.so.0' -print -quit)"
  [ -n "$so" ] || fail "no liboptrace.so.0 under $PREFIX: did deploy.stage run?"
  dirname "$so"
}

require_stage() {
  [ -x "$PREFIX/sbin/optraced" ] || fail "no staged install at $PREFIX (deploy.stage runs first)"
}

# Removes the stage deploy.stage made: the folder $OPTRACE_STAGE links to,
# and the link (or what an older build left there instead).
remove_stage() {
  if [ -L "$OPTRACE_STAGE" ]; then
    case "$STAGE" in /tmp/optrace-deploy-stage.*) rm -rf "$STAGE" ;; esac
  fi
  rm -rf "$OPTRACE_STAGE"
}

# wait_ready LOG SOCKET PID: waits up to 30 s for the daemon PID to log that
# it is ready and for SOCKET to exist; fails with the log if it exits.
wait_ready() {
  local log="$1" socket="$2" pid="$3"
  for _ in $(seq 1 300); do
    if ! kill -0 "$pid" 2>/dev/null; then
      cat "$log" >&2 || true
      fail "optraced exited before it was ready"
    fi
    if [ -S "$socket" ] && grep -q ' ready: ' "$log" 2>/dev/null; then
      return 0
    fi
    sleep 0.1
  done
  cat "$log" >&2 || true
  fail "optraced not ready after 30 s"
}

# stop_daemon PID LOG: SIGTERM, then the exit status must be 0.
stop_daemon() {
  local pid="$1" log="$2" rc=0
  kill -TERM "$pid"
  wait "$pid" || rc=$?
  if [ "$rc" -ne 0 ]; then
    cat "$log" >&2 || true
    fail "optraced exited $rc after SIGTERM (expected 0)"
  fi
}

# stored_session SOCKET DB LABEL: waits (20 s at most) until the daemon has
# stored the session labelled LABEL as ended, then sets STORED_ID,
# STORED_SPANS, STORED_STATE and STORED_NAMES (op names, comma-separated).
# Asks the daemon through the staged `optrace` CLI when it was installed,
# else reads the SQLite file DB (STORED_NAMES: every interned string).
stored_session() {
  local socket="$1" db="$2" label="$3" out=""
  local cli="$PREFIX/bin/optrace"
  STORED_ID="" STORED_SPANS="" STORED_STATE="" STORED_NAMES=""
  for _ in $(seq 1 100); do
    if [ -x "$cli" ]; then
      if "$cli" --socket "$socket" sessions --all --json >"$T/sessions.json" 2>"$T/cli.err"; then
        out="$(python3 "$DEPLOY_TOOL" session "$T/sessions.json" "$label")"
        if [ -n "$out" ]; then
          read -r STORED_ID STORED_SPANS STORED_STATE <<<"$out"
          if [ "$STORED_STATE" != running ]; then
            "$cli" --socket "$socket" ops "$STORED_ID" --limit 0 --json >"$T/ops.json" \
              || fail "optrace ops $STORED_ID failed"
            STORED_NAMES="$(python3 "$DEPLOY_TOOL" op-names "$T/ops.json")"
            return 0
          fi
        fi
      fi
    else
      command -v sqlite3 >/dev/null || skip "neither the optrace CLI nor sqlite3 is installed"
      out="$(sqlite3 "file:$db?mode=ro" "SELECT id, spans, state FROM sessions
               WHERE label = '$label' AND state != 'running';" 2>/dev/null || true)"
      if [ -n "$out" ]; then
        IFS='|' read -r STORED_ID STORED_SPANS STORED_STATE <<<"$out"
        # Span pages are encoded: names are checked through the strings table.
        STORED_NAMES="$(sqlite3 "file:$db?mode=ro" \
          "SELECT group_concat(text, ',') FROM (SELECT text FROM strings ORDER BY text);")"
        return 0
      fi
    fi
    sleep 0.2
  done
  [ -f "$T/cli.err" ] && cat "$T/cli.err" >&2
  fail "no ended session labelled $label stored after 20 s"
}

# ---- running optraced the way optraced.service does ------------------------
# There is no systemd as PID 1 here, so the tests do what it would do for
# the installed unit: the unit's User=/Group= (setpriv), its capabilities,
# NoNewPrivileges, PrivateNetwork and PrivateIPC (unshare), UMask,
# Environment, RuntimeDirectory and StateDirectory (under a test root
# instead of / : /run -> ROOT/run, /var/lib -> ROOT/var/lib) and its
# ExecStart command line. Not emulated: the mount sandbox (ProtectSystem,
# PrivateTmp...) and the seccomp filter (see syscalls_test.sh for that).

UNIT="$PREFIX/lib/systemd/system/optraced.service"
unit_value() { python3 "$DEPLOY_TOOL" unit-value "$UNIT" "$1"; }

_created_user=0
_created_admin_group=0
UNIT_EXTRA_ENV=()
# Makes sure the unit's user exists, creating it from the installed
# sysusers.d file (removed again at exit when this test created it).
# Skips unless running as root with setpriv.
ensure_unit_user() {
  [ "$(id -u)" -eq 0 ] || skip "needs root to run optraced as its unit's user (setpriv)"
  command -v setpriv >/dev/null || skip "setpriv is not installed (package util-linux)"
  local user
  user="$(unit_value User)"
  if ! getent passwd "$user" >/dev/null; then
    if command -v systemd-sysusers >/dev/null; then
      # The sysusers.d file creates the admin group too.
      getent group optrace-admin >/dev/null || _created_admin_group=1
      systemd-sysusers "$PREFIX/lib/sysusers.d/optrace.conf" \
        || skip "cannot create user $user with systemd-sysusers"
    else
      useradd --system --user-group --home-dir /var/lib/optrace --no-create-home \
        --shell /usr/sbin/nologin "$user" || skip "cannot create user $user"
    fi
    _created_user=1
    echo "created user $user ($(id "$user"))"
  fi
  getent passwd "$user" >/dev/null || skip "user $user does not exist"
}

remove_created_user() {
  if [ "$_created_user" = 1 ]; then
    local user
    user="$(unit_value User)"
    userdel "$user" 2>/dev/null || true
    groupdel "$user" 2>/dev/null || true
  fi
  if [ "$_created_admin_group" = 1 ]; then
    groupdel optrace-admin 2>/dev/null || true
  fi
}

# Users and groups a test creates for itself (names unique to the run, e.g.
# with $$): removed at exit, after the test's processes are gone.
_test_users=()
_test_groups=()
# add_test_group NAME; add_test_user NAME [GROUP,...]: the user gets a group
# of its own name as its primary group, and GROUPs as supplementary ones.
# Skip when they cannot be created (not root, no useradd).
add_test_group() {
  groupadd "$1" || skip "cannot create group $1"
  _test_groups+=("$1")
}
add_test_user() {
  useradd --no-create-home --user-group --shell /usr/sbin/nologin ${2:+--groups "$2"} "$1" \
    || skip "cannot create user $1"
  _test_users+=("$1")
  _test_groups+=("$1")
}
_remove_test_accounts() {
  local name
  for name in "${_test_users[@]}"; do userdel "$name" || true; done
  # (userdel usually removes a user's own group already.)
  for name in "${_test_groups[@]}"; do
    if getent group "$name" >/dev/null; then groupdel "$name" || true; fi
  done
}

# "CAP_DAC_OVERRIDE CAP_FOWNER" -> "+dac_override,+fowner" (setpriv's form).
_setpriv_caps() {
  local out="" c
  for c in $1; do
    c="${c#CAP_}"
    out="${out:+$out,}+$(echo "$c" | tr '[:upper:]' '[:lower:]')"
  done
  echo "$out"
}

# unit_prepare ROOT CONFIG: (UNIT_EXTRA_ENV: more VAR=value, e.g. what
# systemd adds: NOTIFY_SOCKET, WATCHDOG_USEC) creates ROOT/run/optrace and ROOT/var/lib/optrace
# as RuntimeDirectory= and StateDirectory= would, and sets UNIT_CMD (the
# full command: setpriv ... env -i ... ExecStart, with ExecStart's config
# replaced by CONFIG), UNIT_UMASK, UNIT_SOCKET and UNIT_STATE.
unit_prepare() {
  local root="$1" config="$2" user group
  user="$(unit_value User)"
  group="$(unit_value Group)"
  mkdir -p "$root/run" "$root/var/lib"
  chmod 0755 "$root" "$root/run" "$root/var" "$root/var/lib"
  local rdir sdir
  rdir="$root/run/$(unit_value RuntimeDirectory)"
  sdir="$root/var/lib/$(unit_value StateDirectory)"
  install -d -m "$(unit_value RuntimeDirectoryMode)" -o "$user" -g "$group" "$rdir"
  install -d -m "$(unit_value StateDirectoryMode)" -o "$user" -g "$group" "$sdir"
  UNIT_STATE="$sdir"
  UNIT_UMASK="$(unit_value UMask)"

  local env=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin
             "USER=$user" "LOGNAME=$user" "HOME=$(getent passwd "$user" | cut -d: -f6)"
             "RUNTIME_DIRECTORY=$rdir" "STATE_DIRECTORY=$sdir")
  local line
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    line="${line//=\/run\//=$root/run/}"
    line="${line//=\/var\/lib/=$root/var/lib}"
    env+=("$line")
    case "$line" in OPTRACE_SOCKET=*) UNIT_SOCKET="${line#OPTRACE_SOCKET=}" ;; esac
  done < <(unit_value Environment)
  [ -n "${UNIT_SOCKET:-}" ] || fail "the unit sets no OPTRACE_SOCKET"

  local exec_start
  exec_start="$(unit_value ExecStart)"
  exec_start="${exec_start//$PREFIX\/etc\/optrace\/optraced.toml/$config}"
  # Namespaces that need no mount tricks: a private network (nothing but
  # file-system Unix sockets reachable) and private System V IPC.
  local namespaces=()
  [ "$(unit_value PrivateNetwork)" = yes ] && namespaces+=(--net)
  [ "$(unit_value PrivateIPC)" = yes ] && namespaces+=(--ipc)
  local setpriv=(setpriv "--reuid=$user" "--regid=$group" --init-groups)
  local caps bounding
  caps="$(_setpriv_caps "$(unit_value AmbientCapabilities)")"
  bounding="$(_setpriv_caps "$(unit_value CapabilityBoundingSet)")"
  [ -n "$caps" ] && setpriv+=("--inh-caps=$caps" "--ambient-caps=$caps")
  setpriv+=("--bounding-set=-all${bounding:+,$bounding}")
  [ "$(unit_value NoNewPrivileges)" = yes ] && setpriv+=(--no-new-privs)
  if [ ${#namespaces[@]} -gt 0 ]; then
    if ! command -v unshare >/dev/null || ! unshare "${namespaces[@]}" true 2>/dev/null; then
      skip "cannot create the unit's namespaces (unshare ${namespaces[*]})"
    fi
    setpriv=(unshare "${namespaces[@]}" -- "${setpriv[@]}")
  fi
  # ExecStart= is split into words as systemd splits it (no quotes in it).
  # shellcheck disable=SC2206
  UNIT_CMD=("${setpriv[@]}" -- env -i "${env[@]}" "OPTRACE_NAMESPACE=$NS" "${UNIT_EXTRA_ENV[@]}"
            $exec_start)
}

# ---- producers of another uid ----------------------------------------------
# run_as UID LABEL CMD...: runs a producer process as UID (and its gid)
# in this test's namespace at level trace, with the staged liboptrace.
run_as() {
  local uid="$1" label="$2"; shift 2
  (cd / && exec setpriv --reuid="$uid" --regid="$uid" --clear-groups -- env -i PATH=/usr/bin:/bin \
    OPTRACE_NAMESPACE="$NS" OPTRACE_SESSION="$label" OPTRACE_LEVEL=trace \
    LD_LIBRARY_PATH="$(staged_libdir)" "$@")
}

# traced_producer_of UID LABEL DAEMON_LOG: runs optrace-test-producer as
# UID (one "start" op, then 20 outer ops each holding an inner op: 41
# spans), holding it after its segment exists until DAEMON_LOG says the
# daemon attached it. Why wait: a producer whose uid is not the daemon's
# (nor root) does not see the daemon's control segment, so one that exits
# before the daemon attached removes its segment as if no daemon ran (see
# docs/deploy.md, "Known limitations").
traced_producer_of() {
  local uid="$1" label="$2" log="$3" fifo="$T/go-$2"
  mkfifo -m 0666 "$fifo"
  run_as "$uid" "$label" "$STAGED_TEST_PRODUCER" --wait-stdin --ops 20 <"$fifo" \
    >"$T/producer-$label.log" 2>&1 &
  local pid=$!
  track "$pid"
  # Read-write: never blocks, even when the producer could not start and
  # no reader will ever open the fifo (the check below then says why).
  exec 7<>"$fifo"
  local segment=""
  for _ in $(seq 1 100); do
    segment="$(sed -n 's/^segment=//p' "$T/producer-$label.log")"
    [ -n "$segment" ] && grep -q "attached $segment " "$log" && break
    sleep 0.1
  done
  grep -q "attached $segment " "$log" \
    || { cat "$T/producer-$label.log" "$log"; exec 7>&-; fail "segment '$segment' of uid $uid was not attached"; }
  echo go >&7
  exec 7>&-
  wait "$pid" || fail "producer $label exited $?"
}
