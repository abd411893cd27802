# Set-up the side-by-side benchmark scripts share; sourced, not run.
# REQUIRES: $repo (the checkout), $here (tests/bench).
#   bench_build BUILD TARGET...  configures BUILD once (Release, -Werror,
#                                Ninja when present) and builds TARGETs
#   bench_scratch NAME           sets tmp (a fresh scratch folder),
#                                OPTRACE_NAMESPACE=NAME<pid> and daemon="";
#                                sources lttng_session.sh; at exit stops
#                                $daemon and the LTTng session daemon it
#                                started, and removes the scratch folder
#                                and the namespace's segments
#   bench_start_daemon           starts $optraced on a new database in $tmp
#                                (level off, no retention), sets daemon to
#                                its pid and waits until it is ready
bench_build() {
  local build=$1
  shift
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$repo}"
  . "$repo/tools/ccache-env.sh"
  if [ ! -f "$build/CMakeCache.txt" ]; then
    local generator=()
    if command -v ninja >/dev/null; then generator=(-G Ninja); fi
    cmake -S "$repo" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DOPTRACE_WERROR=ON >&2
  fi
  cmake --build "$build" -j "${OPTRACE_BUILD_JOBS:-2}" --target "$@" >&2
}

bench_scratch() {
  tmp=$(mktemp -d "/tmp/optrace-$1.XXXXXX")
  export OPTRACE_NAMESPACE=$1$$
  daemon=""
  . "$here/lttng_session.sh"
  trap bench_cleanup EXIT
}

bench_cleanup() {
  [ -n "$daemon" ] && kill "$daemon" 2>/dev/null
  lttng_stop_sessiond
  rm -rf "$tmp" /dev/shm/"$OPTRACE_NAMESPACE".* 2>/dev/null || true
}

bench_start_daemon() {
  rm -f "$tmp"/ops.db*
  "$optraced" --db "$tmp/ops.db" --socket "$tmp/run/optraced.sock" --level off \
    --retention-max-bytes 0 2>"$tmp/daemon.log" &
  daemon=$!
  until grep -qs ' ready:' "$tmp/daemon.log"; do
    kill -0 "$daemon" 2>/dev/null || { cat "$tmp/daemon.log" >&2; exit 1; }
    sleep 0.05
  done
}
