#!/usr/bin/env bash
# deploy.cmake_consumer: a separate CMake project finds the staged install
# with find_package(optrace) and links optrace::client (no C++ standard set:
# the package brings C++20), traces ops through the C++ API against a real
# optraced started from the staged install the way the unit starts it
# (optraced --config FILE), and the ops are stored.
TEST_NAME=cmake_consumer
source "$(dirname "$0")/deploy_lib.sh"
require_stage

step "a separate project: find_package(optrace REQUIRED)"
mkdir -p "$T/app"
cat >"$T/app/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(optrace_consumer LANGUAGES CXX)
find_package(optrace 0.1 REQUIRED)
if(NOT TARGET optrace::client OR NOT EXISTS "${optrace_PROTO_DIR}/optrace/v1/optrace.proto")
  message(FATAL_ERROR "optrace package incomplete: optrace::client / ${optrace_PROTO_DIR}")
endif()
add_executable(app main.cc)
target_link_libraries(app PRIVATE optrace::client)
CMAKE
cat >"$T/app/main.cc" <<'CXX'
// Traces 3 steps of one outer op holding two inner ops: 9 spans.
#include <cstdio>

#include "optrace/optrace.hpp"

namespace {
void Inner(float* x) {
  static optrace::OpSite site("deploy_cmake_matmul", "matmul_4x4x4_f32");
  optrace::ScopedOp op(site, optrace::Placement::Cpu(0));
  *x *= 1.5f;
}
}  // namespace

int main() {
  float x = 1.0f;
  for (int step = 0; step < 3; ++step) {
    OPTRACE_SCOPED_OP(op, "deploy_cmake_step");
    Inner(&x);
    Inner(&x);
  }
  std::printf("x=%.3f\n", x);
  return 0;
}
CXX
"$CMAKE_COMMAND" -S "$T/app" -B "$T/app/build" -G "${CMAKE_GENERATOR:-Ninja}" \
  -DCMAKE_CXX_COMPILER="${CXX:-c++}" -DCMAKE_PREFIX_PATH="$PREFIX" >"$T/configure.log" 2>&1 \
  || { cat "$T/configure.log"; fail "find_package(optrace) project does not configure"; }
"$CMAKE_COMMAND" --build "$T/app/build" >"$T/build.log" 2>&1 \
  || { cat "$T/build.log"; fail "the consumer does not build"; }
ldd "$T/app/build/app" | grep -F "$(staged_libdir)/liboptrace.so.0" \
  || { ldd "$T/app/build/app"; fail "app does not use the staged liboptrace"; }

step "a daemon from the staged install, started as the unit starts it"
# The unit's command line with a site config of this test's folders.
cp "$PREFIX/etc/optrace/optraced.toml" "$T/optraced.toml"
cat >>"$T/optraced.toml" <<TOML
socket = "$T/run/optraced.sock"
db = "$T/state/optrace.db"
namespace = "$NS"
level = "trace"
TOML
# `[[level_rule]]` in the installed file is commented: keys appended last
# are still top-level.
exec_start="$(python3 "$DEPLOY_TOOL" unit-value "$PREFIX/lib/systemd/system/optraced.service" ExecStart)"
[ "$exec_start" = "$PREFIX/sbin/optraced --config $PREFIX/etc/optrace/optraced.toml" ] \
  || fail "unexpected ExecStart: $exec_start"
"$PREFIX/sbin/optraced" --config "$T/optraced.toml" >"$T/daemon.log" 2>&1 &
daemon=$!
track "$daemon"
wait_ready "$T/daemon.log" "$T/run/optraced.sock" "$daemon"

step "run the consumer"
label="deploy-cmake-$$"
OPTRACE_NAMESPACE="$NS" OPTRACE_SESSION="$label" OPTRACE_LEVEL=trace "$T/app/build/app" \
  || fail "the consumer failed"
stored_session "$T/run/optraced.sock" "$T/state/optrace.db" "$label"
spans="$STORED_SPANS" state="$STORED_STATE" names="$STORED_NAMES"
echo "stored: spans=$spans state=$state names=$names"
[ "$spans" = 9 ] || fail "expected 9 spans stored, got $spans"
[ "$state" = exited ] || fail "expected state exited, got $state"
case ",$names," in
  *,deploy_cmake_matmul,*deploy_cmake_step,*) ;;
  *) fail "op names not stored: $names" ;;
esac
stop_daemon "$daemon" "$T/daemon.log"
