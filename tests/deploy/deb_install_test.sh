#!/usr/bin/env bash
# deploy.deb_install (opt-in: OPTRACE_DEPLOY_DPKG=1, root): installs the two
# packages of deploy.packages on this machine with dpkg -i, checks the
# result (user, conffile, binaries run, pkg-config and find_package from
# /usr), then removes and purges them. It changes the system (/usr, /etc,
# the optrace user), hence opt-in; it refuses to touch an optrace that was
# installed before.
TEST_NAME=deb_install
source "$(dirname "$0")/deploy_lib.sh"
[ "${OPTRACE_DEPLOY_DPKG:-0}" = 1 ] || skip "opt-in: set OPTRACE_DEPLOY_DPKG=1 to dpkg -i the packages on this machine"
[ "$(id -u)" -eq 0 ] || skip "dpkg -i needs root"
command -v dpkg >/dev/null || skip "dpkg is not installed"
: "${OPTRACE_DEBS:?}"
for p in optrace liboptrace-dev; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    skip "package $p is already installed: not touching it"
  fi
done
daemon_deb="$(ls "$OPTRACE_DEBS"/optrace_*.deb)"
dev_deb="$(ls "$OPTRACE_DEBS"/liboptrace-dev_*.deb)"
had_user=0
getent passwd optrace >/dev/null && had_user=1
had_admin_group=0
getent group optrace-admin >/dev/null && had_admin_group=1

_purge() {
  dpkg --purge liboptrace-dev optrace >/dev/null 2>&1 || true
  if [ "$had_user" = 0 ]; then
    userdel optrace 2>/dev/null || true
    groupdel optrace 2>/dev/null || true
  fi
  if [ "$had_admin_group" = 0 ]; then
    groupdel optrace-admin 2>/dev/null || true
  fi
}
trap '_purge; _cleanup' EXIT

step "dpkg -i"
dpkg -i "$daemon_deb" "$dev_deb" || fail "dpkg -i failed"
dpkg-query -W -f='${Status}\n' optrace liboptrace-dev
getent passwd optrace || fail "postinst did not create user optrace"
getent group optrace || fail "postinst did not create group optrace"
getent group optrace-admin || fail "postinst did not create group optrace-admin"
dpkg-query -W -f='${Conffiles}\n' optrace | grep -q '/etc/optrace/optraced.toml' \
  || fail "/etc/optrace/optraced.toml is not a registered conffile"

step "the installed programs run"
/usr/sbin/optraced --version
[ -x /usr/bin/optrace ] && /usr/bin/optrace --version
ldconfig -p | grep -q 'liboptrace.so.0 ' || fail "liboptrace.so.0 is not in the linker cache"
OPTRACE_LEVEL=trace OPTRACE_SINK=stderr OPTRACE_NAMESPACE="$NS" /usr/bin/optrace-demo --steps 1 \
  --layers 1 --hidden 16 --batch 1 2>"$T/demo.err" >/dev/null || fail "optrace-demo failed"
grep -q '^\[OP\] LAUNCH ' "$T/demo.err" || fail "optrace-demo printed no op line"
/usr/sbin/optraced --config /etc/optrace/optraced.toml --socket "$T/sock" --db "$T/db" \
  --namespace "$NS" >"$T/daemon.log" 2>&1 &
daemon=$!
track "$daemon"
wait_ready "$T/daemon.log" "$T/sock" "$daemon"
stop_daemon "$daemon" "$T/daemon.log"

step "building against /usr"
pkg-config --cflags --libs optrace
mkdir "$T/app"
printf 'cmake_minimum_required(VERSION 3.16)\nproject(c LANGUAGES CXX)\nfind_package(optrace REQUIRED)\nadd_executable(app main.cc)\ntarget_link_libraries(app optrace::client)\n' \
  >"$T/app/CMakeLists.txt"
printf '#include <optrace/optrace.hpp>\nint main() { OPTRACE_SCOPED_OP(op, "x"); return 0; }\n' >"$T/app/main.cc"
if ! "$CMAKE_COMMAND" -S "$T/app" -B "$T/app/build" >/dev/null \
   || ! "$CMAKE_COMMAND" --build "$T/app/build" >/dev/null; then
  fail "find_package(optrace) against /usr failed"
fi
"$T/app/build/app" || fail "the app built against /usr failed"

step "dpkg -r, then --purge"
dpkg -r liboptrace-dev optrace || fail "dpkg -r failed"
[ ! -e /usr/sbin/optraced ] || fail "/usr/sbin/optraced left after dpkg -r"
[ -e /etc/optrace/optraced.toml ] || fail "dpkg -r should keep the conffile until purge"
dpkg --purge liboptrace-dev optrace || fail "dpkg --purge failed"
[ ! -e /etc/optrace/optraced.toml ] || fail "the conffile is left after purge"
echo "installed, used, removed and purged"
