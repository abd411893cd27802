// ChromeTraceWriter: the trace-event JSON export, for Perfetto UI and
// chrome://tracing.
#ifndef OPTRACE_DAEMON_EXPORT_CHROME_TRACE_WRITER_H_
#define OPTRACE_DAEMON_EXPORT_CHROME_TRACE_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "export/escaped_strings.h"
#include "export/export_buffer.h"
#include "export/export_writer.h"
#include "model/flat_id_map.h"
#include "wire/string_cache.h"

namespace optrace::daemon {

// `text` as a JSON string literal, quotes included; invalid UTF-8 becomes
// U+FFFD (stored strings are sanitized, but the export never trusts that).
std::string JsonString(std::string_view text);

// Writes {"traceEvents":[...],"displayTimeUnit":"ns","otherData":{...}}
// event by event (no document is built in memory):
// * the process (pid = the session's pid) is named "<executable> (<label>)";
//   each thread ("thread <tid>") and each device stream ("gpu:0 stream 1")
//   is a track, named by a metadata event ("ph":"M") before its first event.
//   Thread tracks use the thread id; device tracks use tids from
//   kDeviceTrackTidBase up (above any Linux thread id).
// * "ts" and "dur" are microseconds with three decimals (nanosecond
//   precision), ts since the session's start (otherData.start_unix_ns):
//   absolute Unix times do not fit a double with that precision.
// * OK spans are "X" events (name = op name, cat = target, args: op_id,
//   parent_op_id, tag, src, device_duration_ns, status); CPU spans (and
//   spans without a target) on their launch thread's track (the complete
//   thread when there was no launch), GPU and other-target spans on their
//   device stream's track. Incomplete spans are "X" events from their start
//   to `incomplete_end_ns`; complete-without-launch and duplicate spans are
//   thread-scoped instants ("i"); args.status says which.
// * Marks are instants ("i", cat "mark"); counters are "C" events with
//   args {name: value}, on the thread that recorded them.
// * otherData holds the session record (the SQLite export's sessions
//   columns).
// Borrows `strings` and `buffer`, which must outlive it. Never fails.
class ChromeTraceWriter final : public ExportWriter {
 public:
  static constexpr uint32_t kDeviceTrackTidBase = uint32_t{1} << 31;

  ChromeTraceWriter(StringCache& strings, ExportBuffer& buffer, int64_t incomplete_end_ns)
      : json_(strings, JsonString), buffer_(buffer), incomplete_end_ns_(incomplete_end_ns) {}

  Status Begin(const SessionRecord& session) override;
  Status AddSpan(const Span& span) override;
  Status AddInstant(const Instant& instant) override;
  Status Finish() override;

 private:
  // The tid of the track of `span`, announced first if new.
  uint32_t SpanTrack(const Span& span);
  uint32_t ThreadTrack(uint32_t tid);
  uint32_t DeviceTrack(const Span& span);
  // A "thread_name" metadata event naming track `tid` `name`.
  void NameTrack(uint32_t tid, const std::string& name);
  // Opens an event: `{"ph":"<phase>","pid":..,"tid":..,"ts":..` (no closing brace).
  void OpenEvent(std::string_view phase, uint32_t tid, int64_t unix_ns);

  EscapedStrings json_;
  ExportBuffer& buffer_;
  const int64_t incomplete_end_ns_;
  SessionRecord session_;
  FlatIdMap<uint8_t> threads_;   // tids announced
  FlatIdMap<uint32_t> devices_;  // packed target/device/stream -> track tid
  bool first_event_ = true;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_EXPORT_CHROME_TRACE_WRITER_H_
