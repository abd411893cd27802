# LTTng-UST helpers the benchmark scripts share; sourced, not run.
# REQUIRES: $tmp, a scratch folder the caller removes at exit.
#   lttng_start_sessiond NOTES_FILE   sets lttng_ok=1 (and sessiond_pid when
#                                     it started one) or writes why not
#   lttng_stop_sessiond               stops the one it started, if any
#   count_events TRACE_FOLDER         events in a trace, by babeltrace2
lttng_ok=""
sessiond_pid=""

lttng_start_sessiond() {
  local notes=$1 missing_tools=""
  for t in lttng lttng-sessiond babeltrace2; do command -v $t >/dev/null || missing_tools+=" $t"; done
  if [ -n "$missing_tools" ]; then
    echo "lttng: skipped: not installed:$missing_tools (Debian: lttng-tools babeltrace2)" >>"$notes"
    return
  fi
  # A session daemon of our own, its home in the temp folder (and there
  # its sockets, for a user). Root's sockets are always in /var/run/lttng:
  # where a system session daemon already answers there, the sessions of
  # this run use it and it is left running.
  export LTTNG_HOME="$tmp/lttng-home"
  mkdir -p "$LTTNG_HOME"
  if lttng list >/dev/null 2>&1; then
    echo "$(basename "$0"): LTTng: using the session daemon already running" >&2
    lttng_ok=1
  elif lttng-sessiond --daemonize --no-kernel --pidfile "$tmp/sessiond.pid" \
       >"$tmp/sessiond.log" 2>&1 && [ -s "$tmp/sessiond.pid" ]; then
    sessiond_pid=$(cat "$tmp/sessiond.pid")
    lttng_ok=1
  else
    echo "lttng: skipped: lttng-sessiond did not start: $(tr '\n' ' ' <"$tmp/sessiond.log")" >>"$notes"
  fi
}

lttng_stop_sessiond() {
  if [ -n "$sessiond_pid" ]; then
    kill "$sessiond_pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$sessiond_pid" 2>/dev/null || break; sleep 0.1; done
  fi
}

# Events in an LTTng trace folder, by babeltrace2's counter (no text).
count_events() {
  local ctf
  ctf=$(find "$1" -name metadata -printf '%h\n' | head -1)
  [ -n "$ctf" ] || { echo 0; return; }
  babeltrace2 run --component=src:source.ctf.fs --params="inputs=[\"$ctf\"]" \
    --component=mux:filter.utils.muxer --component=count:sink.utils.counter \
    --connect=src:mux --connect=mux:count 2>&1 |
    awk '$2 == "Event" && $3 == "messages" { n = $1 } END { print n + 0 }'
}
