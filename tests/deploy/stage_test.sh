#!/usr/bin/env bash
# deploy.stage (fixture of the other deploy tests): installs the main build
# into $PREFIX with `cmake --install --prefix`, as a user staging optrace
# would, and into a DESTDIR with --prefix /usr, as a package build does;
# checks that each file lands where it must. The stage is a folder of its
# own under /tmp, linked from $OPTRACE_STAGE (deploy.unstage removes it),
# with copies of the test programs that other uids run: from a private
# checkout (0700) they could not reach the build tree.
TEST_NAME=stage
source "$(dirname "$0")/deploy_lib.sh"
: "${OPTRACE_TEST_PRODUCER:?}" "${OPTRACE_TEST_CLIENT:?}"

remove_stage
ln -s "$(mktemp -d /tmp/optrace-deploy-stage.XXXXXX)" "$OPTRACE_STAGE"
locate_stage
chmod 0755 "$STAGE"

step "cmake --install --prefix $PREFIX"
"$CMAKE_COMMAND" --install "$OPTRACE_BUILD_DIR" --prefix "$PREFIX" >"$OPTRACE_STAGE/install.log" \
  || { cat "$OPTRACE_STAGE/install.log"; fail "cmake --install failed"; }
libdir="$(staged_libdir)"

expect_file() { [ -e "$1" ] || fail "missing after install: $1"; }
expect_line() { grep -qxF -- "$2" "$1" || { cat "$1"; fail "$1 lacks the line: $2"; }; }

for f in sbin/optraced bin/optrace-demo \
         include/optrace/optrace.h include/optrace/optrace.hpp include/optrace/abi.h \
         include/optrace/export.h include/optrace/detail/fast_path.h \
         share/optrace/proto/optrace/v1/optrace.proto \
         lib/systemd/system/optraced.service lib/systemd/user/optraced.service \
         lib/sysusers.d/optrace.conf etc/optrace/optraced.toml \
         share/man/man8/optraced.8 share/man/man1/optrace.1 \
         share/doc/optrace/deploy.md share/doc/optrace/examples/listen-tcp.conf; do
  expect_file "$PREFIX/$f"
done
if [ -x "$OPTRACE_BUILD_DIR/cli/optrace" ]; then
  expect_file "$PREFIX/bin/optrace"
fi
for f in liboptrace.so.0 liboptrace.so cmake/optrace/optraceConfig.cmake \
         cmake/optrace/optraceConfigVersion.cmake cmake/optrace/optraceTargets.cmake \
         pkgconfig/optrace.pc; do
  expect_file "$libdir/$f"
done
[ "$(readlink "$libdir/liboptrace.so")" = liboptrace.so.0 ] \
  || fail "liboptrace.so should link to the soname liboptrace.so.0"
soname="$(objdump -p "$libdir/liboptrace.so.0" | awk '/SONAME/ {print $2}')"
[ "$soname" = liboptrace.so.0 ] || fail "SONAME is '$soname', expected liboptrace.so.0"

step "paths written for the install-time prefix"
expect_line "$PREFIX/lib/systemd/system/optraced.service" \
  "ExecStart=$PREFIX/sbin/optraced --config $PREFIX/etc/optrace/optraced.toml"
expect_line "$PREFIX/lib/systemd/user/optraced.service" \
  "ExecStart=$PREFIX/sbin/optraced --socket %t/optrace/optraced.sock --db %S/optrace/optrace.db"
expect_line "$libdir/pkgconfig/optrace.pc" "prefix=$PREFIX"
cmp -s "$PREFIX/etc/optrace/optraced.toml" "$OPTRACE_SOURCE_DIR/deploy/optraced.toml" \
  || fail "the installed config differs from deploy/optraced.toml"

step "DESTDIR install with --prefix /usr (what a package build does)"
DESTDIR="$T/destdir" "$CMAKE_COMMAND" --install "$OPTRACE_BUILD_DIR" --prefix /usr >"$T/destdir.log" \
  || { cat "$T/destdir.log"; fail "DESTDIR install failed"; }
expect_file "$T/destdir/etc/optrace/optraced.toml"
[ ! -e "$T/destdir/usr/etc" ] || fail "the config went to /usr/etc instead of /etc"
expect_line "$T/destdir/usr/lib/systemd/system/optraced.service" \
  "ExecStart=/usr/sbin/optraced --config /etc/optrace/optraced.toml"
cmp -s "$T/destdir/usr/lib/systemd/system/optraced.service" \
  "$OPTRACE_SOURCE_DIR/deploy/systemd/optraced.service" \
  || fail "with prefix /usr the unit must be deploy/systemd/optraced.service unchanged"
pc="$(find "$T/destdir/usr/lib" -name optrace.pc -print -quit)"
expect_line "$pc" "prefix=/usr"
step "test programs that other uids run, and that they can reach them"
install -d -m 0755 "$(dirname "$STAGED_TEST_PRODUCER")"
install -m 0755 "$OPTRACE_TEST_PRODUCER" "$STAGED_TEST_PRODUCER"
install -m 0755 "$OPTRACE_TEST_CLIENT" "$STAGED_TEST_CLIENT"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  for f in "$PREFIX/sbin/optraced" "$PREFIX/bin/optrace-demo" "$libdir/liboptrace.so.0" \
           "$STAGED_TEST_PRODUCER" "$STAGED_TEST_CLIENT"; do
    setpriv --reuid=65534 --regid=65534 --clear-groups -- test -r "$f" \
      || fail "uid 65534 cannot read $f: some folder above it is closed to other users"
  done
fi
echo "staged install ready at $PREFIX (libdir $libdir)"
