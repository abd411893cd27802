#!/usr/bin/env bash
# deploy.packages: cpack builds the Debian packages from the main build
# (optrace and liboptrace-dev, and optrace-torch where the build has the
# PyTorch tracer), and their contents and control data are what an
# installation needs: files, the conffile, maintainer scripts, Depends.
# The .debs are left in $OPTRACE_DEBS for deploy.deb_install.
TEST_NAME=packages
source "$(dirname "$0")/deploy_lib.sh"
command -v dpkg-deb >/dev/null || skip "dpkg-deb is not installed"
: "${OPTRACE_DEBS:?}"

step "cpack -B $OPTRACE_DEBS"
rm -rf "$OPTRACE_DEBS"
mkdir -p "$OPTRACE_DEBS"
(cd "$OPTRACE_DEBS" && "$CPACK_COMMAND" --config "$OPTRACE_BUILD_DIR/CPackConfig.cmake" \
   -B "$OPTRACE_DEBS" >"$OPTRACE_DEBS/cpack.log" 2>&1) \
  || { cat "$OPTRACE_DEBS/cpack.log"; fail "cpack failed"; }
version="$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$OPTRACE_BUILD_DIR/CPackConfig.cmake")"
arch="$(dpkg --print-architecture)"
daemon_deb="$OPTRACE_DEBS/optrace_${version}-1_${arch}.deb"
dev_deb="$OPTRACE_DEBS/liboptrace-dev_${version}-1_${arch}.deb"
ls -l "$OPTRACE_DEBS"/*.deb
[ -f "$daemon_deb" ] || fail "missing $daemon_deb"
[ -f "$dev_deb" ] || fail "missing $dev_deb"
expected_debs=2
torch_deb="$OPTRACE_DEBS/optrace-torch_${version}-1_${arch}.deb"
if [ -f "$OPTRACE_BUILD_DIR/python/optrace/liboptrace_torch.so" ]; then
  expected_debs=3
  [ -f "$torch_deb" ] || fail "missing $torch_deb (the build has the PyTorch tracer)"
fi
[ "$(ls "$OPTRACE_DEBS"/*.deb | wc -l)" -eq "$expected_debs" ] \
  || fail "expected exactly $expected_debs packages"

dpkg-deb -c "$daemon_deb" | awk '{print $6}' | sed 's#^\./#/#' >"$T/daemon.files"
dpkg-deb -c "$dev_deb" | awk '{print $6}' | sed 's#^\./#/#' >"$T/dev.files"
has() { grep -qE "^$2\$" "$1" || fail "$(basename "$1" .files) package lacks $2"; }
lacks() { ! grep -qE "$2" "$1" || fail "$(basename "$1" .files) package should not hold $2"; }

step "optrace package contents"
for f in /usr/sbin/optraced /usr/bin/optrace-demo '/usr/lib/(.*/)?liboptrace\.so\.0' \
         '/usr/lib/(.*/)?liboptrace\.so\.[0-9.]+' /usr/lib/systemd/system/optraced.service \
         /usr/lib/systemd/user/optraced.service /usr/lib/sysusers.d/optrace.conf \
         /etc/optrace/optraced.toml /usr/share/man/man8/optraced.8 /usr/share/man/man1/optrace.1 \
         /usr/share/optrace/proto/optrace/v1/optrace.proto /usr/share/doc/optrace/deploy.md; do
  has "$T/daemon.files" "$f"
done
if [ -x "$OPTRACE_BUILD_DIR/cli/optrace" ]; then
  has "$T/daemon.files" /usr/bin/optrace
fi
lacks "$T/daemon.files" '^/usr/include/|liboptrace\.so$|/cmake/|/pkgconfig/'

step "liboptrace-dev package contents"
for f in /usr/include/optrace/optrace.h /usr/include/optrace/optrace.hpp /usr/include/optrace/abi.h \
         /usr/include/optrace/export.h /usr/include/optrace/detail/fast_path.h \
         '/usr/lib/(.*/)?liboptrace\.so' '/usr/lib/(.*/)?cmake/optrace/optraceConfig\.cmake' \
         '/usr/lib/(.*/)?cmake/optrace/optraceConfigVersion\.cmake' \
         '/usr/lib/(.*/)?cmake/optrace/optraceTargets\.cmake' '/usr/lib/(.*/)?pkgconfig/optrace\.pc'; do
  has "$T/dev.files" "$f"
done
lacks "$T/dev.files" '/s?bin/|liboptrace\.so\.'

step "control data"
dpkg-deb -I "$daemon_deb" >"$T/daemon.info"
dpkg-deb -I "$dev_deb" >"$T/dev.info"
cat "$T/daemon.info"
for member in conffiles postinst prerm postrm md5sums shlibs triggers; do
  grep -qE "^ +[0-9]+ bytes, +[0-9]+ lines +\*? *$member" "$T/daemon.info" \
    || fail "optrace package has no $member"
done
[ "$(dpkg-deb -I "$daemon_deb" conffiles)" = /etc/optrace/optraced.toml ] \
  || fail "conffiles must list exactly /etc/optrace/optraced.toml"
depends="$(dpkg-deb -f "$daemon_deb" Depends)"
echo "optrace Depends: $depends"
for lib in libc6 'libstdc\+\+6' 'libgrpc\+\+1' libprotobuf 'libsqlite3-0' libsystemd0 libre2; do
  echo "$depends" | grep -qE "(^|, )$lib" || fail "optrace Depends lacks $lib (dpkg-shlibdeps)"
done
dev_depends="$(dpkg-deb -f "$dev_deb" Depends)"
echo "liboptrace-dev Depends: $dev_depends"
echo "$dev_depends" | grep -qF "optrace (= ${version}-1)" \
  || fail "liboptrace-dev must depend on optrace (= ${version}-1)"
if [ -f "$torch_deb" ]; then
  step "optrace-torch package"
  dpkg-deb -c "$torch_deb" | awk '{print $6}' | sed 's#^\./#/#' >"$T/torch.files"
  has "$T/torch.files" '/usr/lib/python3/dist-packages/optrace/liboptrace_torch\.so'
  lacks "$T/torch.files" '/s?bin/|liboptrace\.so\.|/usr/include/'
  torch_depends="$(dpkg-deb -f "$torch_deb" Depends)"
  echo "optrace-torch Depends: $torch_depends"
  echo "$torch_depends" | grep -qF "optrace (= ${version}-1)" \
    || fail "optrace-torch must depend on optrace (= ${version}-1)"
  echo "$torch_depends" | grep -qE "(^|, )python3-torch" || fail "optrace-torch must depend on python3-torch"
fi
[ "$(dpkg-deb -f "$daemon_deb" Package)" = optrace ] || fail "package name"
[ "$(dpkg-deb -f "$dev_deb" Package)" = liboptrace-dev ] || fail "package name"

step "installed files written for /usr"
mkdir "$T/x"
dpkg-deb -x "$daemon_deb" "$T/x"
dpkg-deb -x "$dev_deb" "$T/x"
grep -qxF "ExecStart=/usr/sbin/optraced --config /etc/optrace/optraced.toml" \
  "$T/x/usr/lib/systemd/system/optraced.service" || fail "unit ExecStart not written for /usr"
grep -qxF "prefix=/usr" "$(find "$T/x" -name optrace.pc)" || fail "optrace.pc prefix is not /usr"
if command -v file >/dev/null && file "$T/x/usr/sbin/optraced" | grep -q "not stripped"; then
  fail "optraced in the package is not stripped"
fi
for script in postinst prerm postrm; do
  dpkg-deb --ctrl-tarfile "$daemon_deb" | tar -xO "./$script" >"$T/$script"
  sh -n "$T/$script" || fail "$script is not valid sh"
done
echo "packages OK: $(basename "$daemon_deb") $(basename "$dev_deb")"
