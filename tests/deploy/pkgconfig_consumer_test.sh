#!/usr/bin/env bash
# deploy.pkgconfig_consumer: a C program that uses only the C API
# (optrace/optrace.h) builds with nothing but `pkg-config --cflags --libs
# optrace` against the staged install (strict C11, warnings as errors),
# traces ops against a real optraced started the way the unit starts it,
# and the ops are stored. A C++20 file builds from the same flags too.
TEST_NAME=pkgconfig_consumer
source "$(dirname "$0")/deploy_lib.sh"
require_stage
command -v pkg-config >/dev/null || skip "pkg-config is not installed"

libdir="$(staged_libdir)"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
step "pkg-config optrace"
[ "$(pkg-config --modversion optrace)" = "$(sed -n 's/^Version: //p' "$libdir/pkgconfig/optrace.pc")" ]
flags="$(pkg-config --cflags --libs optrace)"
echo "pkg-config --cflags --libs optrace: $flags"
echo "$flags" | grep -qF -- "-I$PREFIX/include" || fail "Cflags do not point at $PREFIX/include"
echo "$flags" | grep -qF -- "-L$libdir" || fail "Libs do not point at $libdir"

mkdir "$T/app"
cat >"$T/app/main.c" <<'C'
/* Four ops through the C API only: 4 spans, plus a mark. */
#include <stdio.h>
#include <string.h>

#include <optrace/optrace.h>

int main(void) {
  uint32_t name = 0, tag = 0, loc = 0, mark = 0;
  if (optrace_intern("deploy_c_rms_norm", strlen("deploy_c_rms_norm"), &name) != 0 ||
      optrace_intern("rms_norm_64_f32", strlen("rms_norm_64_f32"), &tag) != 0 ||
      optrace_intern_location(__FILE__, __LINE__, &loc) != 0 ||
      optrace_intern("deploy_c_mark", strlen("deploy_c_mark"), &mark) != 0) {
    fprintf(stderr, "intern failed\n");
    return 1;
  }
  optrace_op_desc desc = {name, tag, loc, OPTRACE_TARGET_CPU, 0, 0};
  for (int i = 0; i < 4; ++i) {
    const uint64_t id = optrace_op_begin(&desc, OPTRACE_OP_SCOPED);
    if (id == 0) {
      fprintf(stderr, "op not recorded: level %d\n", optrace_get_level());
      return 1;
    }
    optrace_op_end(&desc, id, 0);
  }
  optrace_mark(OPTRACE_LEVEL_INFO, mark, 0);
  printf("ok\n");
  return 0;
}
C
cat >"$T/app/main.cc" <<'CXX'
#include <optrace/optrace.hpp>
int main() {
  OPTRACE_SCOPED_OP(op, "deploy_cxx_op");
  return 0;
}
CXX
step "build with pkg-config flags only"
# shellcheck disable=SC2046
"${CC:-cc}" -std=c11 -Wall -Wextra -Wpedantic -Werror "$T/app/main.c" -o "$T/app/c_app" \
  $(pkg-config --cflags --libs optrace) || fail "the C consumer does not build"
# shellcheck disable=SC2046
"${CXX:-c++}" -std=c++20 -Wall -Wextra -Werror "$T/app/main.cc" -o "$T/app/cxx_app" \
  $(pkg-config --cflags --libs optrace) || fail "a C++20 consumer does not build from optrace.pc"

step "a daemon from the staged install, started as the unit starts it"
cp "$PREFIX/etc/optrace/optraced.toml" "$T/optraced.toml"
cat >>"$T/optraced.toml" <<TOML
socket = "$T/run/optraced.sock"
db = "$T/state/optrace.db"
namespace = "$NS"
level = "trace"
TOML
"$PREFIX/sbin/optraced" --config "$T/optraced.toml" >"$T/daemon.log" 2>&1 &
daemon=$!
track "$daemon"
wait_ready "$T/daemon.log" "$T/run/optraced.sock" "$daemon"

step "run the C consumer (no RPATH: the library is found through LD_LIBRARY_PATH)"
label="deploy-pkgconfig-$$"
LD_LIBRARY_PATH="$(pkg-config --variable=libdir optrace)" OPTRACE_NAMESPACE="$NS" \
  OPTRACE_SESSION="$label" OPTRACE_LEVEL=trace "$T/app/c_app" || fail "the C consumer failed"
stored_session "$T/run/optraced.sock" "$T/state/optrace.db" "$label"
spans="$STORED_SPANS" state="$STORED_STATE" names="$STORED_NAMES"
echo "stored: spans=$spans state=$state names=$names"
[ "$spans" = 4 ] || fail "expected 4 spans stored, got $spans"
[ "$state" = exited ] || fail "expected state exited, got $state"
case ",$names," in
  *,deploy_c_rms_norm,*) ;;
  *) fail "op name not stored: $names" ;;
esac
stop_daemon "$daemon" "$T/daemon.log"
