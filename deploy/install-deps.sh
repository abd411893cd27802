#!/usr/bin/env bash
# Installs every Debian 12 package that building and testing optrace needs.
# Idempotent: packages already installed are skipped, and apt is not touched
# at all when nothing is missing. Run as root (or with sudo available).
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config ccache git
  # gRPC and protobuf (protobuf-compiler-grpc: gRPC's CMake config needs the plugin)
  libgrpc++-dev libgrpc-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  # libraries
  libboost-dev libsqlite3-dev sqlite3 libcli11-dev libfmt-dev nlohmann-json3-dev
  libtomlplusplus-dev libre2-dev libsystemd-dev
  # the ClickHouse forwarder: HTTP (libcurl) and gzip (zlib)
  libcurl4-openssl-dev zlib1g-dev
  # the HTTP server of the metrics endpoint and of `optrace ui` (http/)
  libcpp-httplib-dev
  # the Python package (python/): headers for its extension, the gRPC stubs' runtime
  python3-dev python3-grpcio python3-protobuf
  # liboptrace_torch (torch/) and its tests and benchmarks: Debian's CPU
  # PyTorch 1.13 (about 200 MB), its C++ headers, torchvision's models
  python3-torch libtorch-dev python3-torchvision
  # tests and benchmarks (prometheus: the metrics test's scraper, and promtool)
  prometheus libgtest-dev libgmock-dev libbenchmark-dev python3 tmux procps util-linux
  # the browser tests of `optrace ui` (tests/cli/ui_browser_test.cc): headless Chromium
  chromium
  # tests/bench/side_by_side.sh: the tracers and loggers optrace is compared with
  lttng-tools liblttng-ust-dev babeltrace2 libspdlog-dev
  # the fleet tests: two real ClickHouse servers (tests/fleet/)
  clickhouse-server clickhouse-client
  # fuzzing (libFuzzer) and the sanitizer runtimes
  clang-14 libclang-rt-14-dev
  # deploy: systemd-analyze and systemd-sysusers (units), dpkg-shlibdeps (cpack),
  # man -l (man pages), strace (the unit's system call filter), file
  systemd dpkg-dev man-db strace file
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
