#!/usr/bin/env bash
# deploy.socket_squat (issue 29, finding 9): what another user makes first
# in the folders everyone can write is refused by name. Real users created
# here: alice runs a per-user optraced (no XDG_RUNTIME_DIR: the socket
# falls back to /tmp/optrace-$UID), mallory squats. Checks:
#   - /tmp/optrace-<alice's uid> made by mallory: alice's optraced, CLI and
#     Python client each refuse it, naming the folder, mallory and its mode;
#   - /dev/shm/<ns>.control.<alice's uid> made by mallory: alice's optraced
#     refuses to start, naming the segment, mallory and its mode;
#   - with both gone, the same commands serve alice (the refusals above
#     were the squats', not the setup's).
TEST_NAME=socket_squat
source "$(dirname "$0")/deploy_lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to create users and run as them"
for tool in useradd userdel setpriv; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done
: "${OPTRACED:?}" "${OPTRACE_CLI:?}"
py=/usr/bin/python3
[ -x "$py" ] || skip "$py is not installed"
[ -d "$OPTRACE_BUILD_DIR/python/optrace" ] || skip "the Python package is not built"

alice="optrace-t-alice-$$"
mallory="optrace-t-mallory-$$"
step "users"
add_test_user "$alice"
add_test_user "$mallory"
alice_uid="$(id -u "$alice")"
mallory_uid="$(id -u "$mallory")"
folder="/tmp/optrace-$alice_uid"
control="/dev/shm/$NS.control.$alice_uid"
[ ! -e "$folder" ] || fail "$folder exists before the test (left by an earlier run?)"
# The squats outlive their maker's account: removed at exit, before the
# library's cleanup (which keeps the exit status).
trap 'rc=$?; set +e; rm -rf "$folder" "$control"; (exit $rc); _cleanup' EXIT

step "stage the binaries and the Python package where alice can reach them"
bin="$T/bin"
mkdir -m 0755 "$bin"
cp "$OPTRACED" "$bin/optraced"
cp "$OPTRACE_CLI" "$bin/optrace"
cp -r "$OPTRACE_BUILD_DIR/python" "$T/python"
# The package's extension links liboptrace from the build folder, which
# alice cannot enter in a private checkout: she gets a copy beside the binaries.
extension="$(find "$T/python/optrace" -name '_producer*.so' -print -quit)"
liboptrace="$(ldd "$extension" | awk '/liboptrace\.so/ {print $3}')"
[ -n "$liboptrace" ] || fail "the Python extension $extension does not link liboptrace"
cp "$liboptrace" "$bin/"
chmod -R a+rX "$bin" "$T/python"
mkdir -m 0700 "$T/alice"
chown "$alice" "$T/alice"

# exec_as USER CMD...: becomes CMD run as USER, with no XDG_RUNTIME_DIR or
# OPTRACE_SOCKET; as USER CMD...: runs it in a subshell.
exec_as() {
  local user="$1"; shift
  cd / && exec setpriv --reuid="$user" --regid="$user" --init-groups -- env -i \
    PATH=/usr/bin:/bin HOME=/ OPTRACE_NAMESPACE="$NS" PYTHONPATH="$T/python" \
    LD_LIBRARY_PATH="$bin" "$@"
}
as() { (exec_as "$@"); }
# daemon_of_alice SECONDS: alice's optraced, stopped after SECONDS at most.
daemon_of_alice() { as "$alice" timeout "$1" "$bin/optraced" --db "$T/alice/optrace.db"; }
client_of_alice() { as "$alice" "$py" -c 'import optrace; print(optrace.Client().status())'; }

step "mallory makes $folder first"
as "$mallory" mkdir -m 0755 "$folder"
refusal="socket folder $folder is owned by uid $mallory_uid ($mallory) with mode 0755"
rc=0
daemon_of_alice 20 >"$T/daemon1.log" 2>&1 || rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || { cat "$T/daemon1.log"; fail "optraced exited $rc"; }
grep -qF "$refusal" "$T/daemon1.log" || { cat "$T/daemon1.log"; fail "optraced: no '$refusal'"; }
rc=0
as "$alice" "$bin/optrace" status >"$T/cli1.log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || { cat "$T/cli1.log"; fail "optrace status exited $rc, expected 1"; }
grep -qF "$refusal" "$T/cli1.log" || { cat "$T/cli1.log"; fail "optrace status: no '$refusal'"; }
rc=0
client_of_alice >"$T/py1.log" 2>&1 || rc=$?
grep -qF "PermissionError: $refusal" "$T/py1.log" \
  || { cat "$T/py1.log"; fail "optrace.Client(): no PermissionError '$refusal'"; }
echo "refused: $refusal"

step "mallory makes $control first"
rm -rf "$folder"
as "$mallory" touch "$control"
chmod 0644 "$control"
refusal="$control is owned by uid $mallory_uid ($mallory) with mode 0644"
rc=0
daemon_of_alice 20 >"$T/daemon2.log" 2>&1 || rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || { cat "$T/daemon2.log"; fail "optraced exited $rc"; }
grep -qF "$refusal" "$T/daemon2.log" || { cat "$T/daemon2.log"; fail "optraced: no '$refusal'"; }
echo "refused: $refusal"

step "without the squats alice's daemon serves her CLI and Python client"
rm -f "$control"
rm -rf "$folder"
(exec_as "$alice" "$bin/optraced" --db "$T/alice/optrace.db") >"$T/daemon3.log" 2>&1 &
daemon=$!
track "$daemon"
wait_ready "$T/daemon3.log" "$folder/optraced.sock" "$daemon"
[ "$(stat -c %U "$folder")" = "$alice" ] || fail "$folder is not alice's"
as "$alice" "$bin/optrace" status >"$T/cli3.log" 2>&1 || { cat "$T/cli3.log"; fail "optrace status"; }
client_of_alice >"$T/py3.log" 2>&1 || { cat "$T/py3.log"; fail "optrace.Client().status()"; }
stop_daemon "$daemon" "$T/daemon3.log"
echo "PASS"
