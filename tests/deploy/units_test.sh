#!/usr/bin/env bash
# deploy.units: `systemd-analyze verify` passes, without a single warning, on
# the installed system and user units (their ExecStart names the staged
# binary, and man:optraced(8) must resolve); the sysusers.d file parses;
# the system unit's offline security exposure stays low; and nothing in the
# unit takes /dev/shm away from the daemon (it shares it with producers).
TEST_NAME=units
source "$(dirname "$0")/deploy_lib.sh"
require_stage
command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed (package systemd)"

system_unit="$PREFIX/lib/systemd/system/optraced.service"
user_unit="$PREFIX/lib/systemd/user/optraced.service"
export MANPATH="$PREFIX/share/man:"
export XDG_RUNTIME_DIR="$T/xdg-runtime"  # the user manager's %t
mkdir -m 0700 "$XDG_RUNTIME_DIR"

# Can systemd-analyze run here at all? A unit that must verify cleanly.
mkdir "$T/probe"
printf '[Service]\nExecStart=/bin/true\n' >"$T/probe/probe.service"
if ! systemd-analyze verify --man=no "$T/probe/probe.service" >"$T/probe.log" 2>&1 || [ -s "$T/probe.log" ]; then
  skip "systemd-analyze verify does not work in this environment: $(head -3 "$T/probe.log")"
fi

# verify exits 0 on unknown keys and bad values (it only logs them), so
# any output is a failure.
verify() {
  local what="$1"; shift
  step "systemd-analyze $* ($what)"
  if ! systemd-analyze "$@" >"$T/verify.log" 2>&1 || [ -s "$T/verify.log" ]; then
    cat "$T/verify.log"
    fail "$what does not verify cleanly"
  fi
}
verify "system unit" verify --man=yes "$system_unit"
verify "user unit" --user verify --man=yes "$user_unit"

# A network drop-in beside a copy of the unit: it must verify too, and
# really give the network back (IPv4 and IPv6 included).
check_network_dropin() {
  local dropin="$1" dir="$T/${1%.conf}"
  mkdir -p "$dir/optraced.service.d"
  cp "$system_unit" "$dir/optraced.service"
  cp "$PREFIX/share/doc/optrace/examples/$dropin" "$dir/optraced.service.d/"
  verify "system unit + $dropin" verify --man=yes "$dir/optraced.service"
  systemd-analyze security --offline=true "$dir/optraced.service" >"$dir-security.log" 2>&1 || true
  grep -q 'PrivateNetwork=.*has access to the host' "$dir-security.log" \
    || { cat "$dir-security.log"; fail "$dropin does not give the network back"; }
  grep -q 'RestrictAddressFamilies=~AF_(INET|INET6).*may allocate Internet sockets' "$dir-security.log" \
    || fail "$dropin does not allow AF_INET/AF_INET6"
}
check_network_dropin listen-tcp.conf      # --listen (docs/deploy.md)
check_network_dropin metrics-listen.conf  # --metrics-listen (docs/daemon.md: metrics)

step "systemd-sysusers --dry-run"
if systemd-sysusers --help 2>/dev/null | grep -q -- --dry-run; then
  mkdir -p "$T/sysroot/etc"
  : >"$T/sysroot/etc/passwd"; : >"$T/sysroot/etc/group"
  systemd-sysusers --dry-run --root="$T/sysroot" "$PREFIX/lib/sysusers.d/optrace.conf" \
    >"$T/sysusers.log" 2>&1 || { cat "$T/sysusers.log"; fail "sysusers.d file rejected"; }
  cat "$T/sysusers.log"
  grep -q "optrace" "$T/sysusers.log" || fail "sysusers would not create user optrace"
else
  echo "(systemd-sysusers has no --dry-run here: not checked)"
fi

step "the system unit keeps /dev/shm and /proc shared with the producers"
for directive in DynamicUser RemoveIPC PrivateUsers; do
  if grep -Eq "^${directive}=(yes|true|on|1)" "$system_unit"; then
    fail "$directive= would delete producers' segments in /dev/shm or hide their owners (see the unit's comments)"
  fi
done
grep -Eq '^(TemporaryFileSystem|InaccessiblePaths|BindPaths|BindReadOnlyPaths)=.*/dev(/shm)?( |:|$)' \
  "$system_unit" && fail "the unit mounts over /dev/shm"
grep -Eq '^ProtectProc=(invisible|noaccess|ptraceable)' "$system_unit" \
  && fail "ProtectProc= would hide producers' /proc/<pid> from the daemon"
for directive in Type=notify WatchdogSec= NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes \
                 PrivateTmp=yes RuntimeDirectory=optrace StateDirectory=optrace User=optrace \
                 Group=optrace Restart=on-failure RestrictAddressFamilies=AF_UNIX; do
  grep -q "^${directive}" "$system_unit" || fail "the system unit lacks $directive"
done

step "systemd-analyze security --offline (exposure of the system unit)"
systemd-analyze security --offline=true "$system_unit" >"$T/security.log" 2>&1 || true
exposure="$(sed -n 's/.*Overall exposure level for optraced.service: \([0-9.]*\).*/\1/p' "$T/security.log")"
[ -n "$exposure" ] || { cat "$T/security.log"; fail "no exposure level reported"; }
echo "exposure $exposure (0 = locked down, 10 = unprotected)"
python3 -c "import sys; sys.exit(0 if float('$exposure') <= 2.5 else 1)" \
  || { grep '✗' "$T/security.log"; fail "exposure $exposure is above 2.5"; }
