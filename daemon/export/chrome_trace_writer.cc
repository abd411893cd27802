#include "export/chrome_trace_writer.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "common/op_line.h"
#include "export/export_columns.h"
#include "export/export_text.h"
#include "export/export_tracks.h"

namespace optrace::daemon {
namespace {

constexpr int kNsPerUs = 1000;

// Appends `ns` as microseconds with exactly three decimals ("-1.005").
void AppendMicros(std::string& out, __int128 ns) {
  if (ns < 0) out += '-';
  const unsigned __int128 magnitude =
      ns < 0 ? -static_cast<unsigned __int128>(ns) : static_cast<unsigned __int128>(ns);
  // |ns| < 2^65 here (a difference of two int64s), so the quotient fits.
  AppendDecimal(out, static_cast<uint64_t>(magnitude / kNsPerUs));
  const auto fraction = static_cast<unsigned>(magnitude % kNsPerUs);
  out += '.';
  out += static_cast<char>('0' + fraction / 100);
  out += static_cast<char>('0' + fraction / 10 % 10);
  out += static_cast<char>('0' + fraction % 10);
}

}  // namespace

std::string JsonString(std::string_view text) {
  return nlohmann::json(std::string(text))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Status ChromeTraceWriter::Begin(const SessionRecord& session) {
  session_ = session;
  std::string& out = buffer_.text();
  out += "{\"traceEvents\":[\n";
  const std::string process =
      session.label.empty() ? session.executable : session.executable + " (" + session.label + ")";
  out += "{\"ph\":\"M\",\"pid\":";
  AppendDecimal(out, session.pid);
  out += ",\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":";
  out += JsonString(process);
  out += "}}";
  first_event_ = false;
  return Status::Ok();
}

void ChromeTraceWriter::OpenEvent(std::string_view phase, uint32_t tid, int64_t unix_ns) {
  std::string& out = buffer_.text();
  if (!first_event_) out += ",\n";
  first_event_ = false;
  out += "{\"ph\":\"";
  out += phase;
  out += "\",\"pid\":";
  AppendDecimal(out, session_.pid);
  out += ",\"tid\":";
  AppendDecimal(out, tid);
  out += ",\"ts\":";
  AppendMicros(out, static_cast<__int128>(unix_ns) - session_.start_ns);
}

void ChromeTraceWriter::NameTrack(uint32_t tid, const std::string& name) {
  std::string& out = buffer_.text();
  out += ",\n{\"ph\":\"M\",\"pid\":";
  AppendDecimal(out, session_.pid);
  out += ",\"tid\":";
  AppendDecimal(out, tid);
  out += ",\"name\":\"thread_name\",\"args\":{\"name\":";
  out += JsonString(name);
  out += "}}";
}

uint32_t ChromeTraceWriter::ThreadTrack(uint32_t tid) {
  if (threads_.Find(tid) == nullptr) {
    threads_.Insert(tid, 1);
    NameTrack(tid, "thread " + std::to_string(tid));
  }
  return tid;
}

uint32_t ChromeTraceWriter::DeviceTrack(const Span& span) {
  const uint64_t key = DeviceTrackKey(span);
  if (const uint32_t* tid = devices_.Find(key)) return *tid;
  const uint32_t tid = kDeviceTrackTidBase + static_cast<uint32_t>(devices_.size());
  devices_.Insert(key, tid);
  NameTrack(tid, DeviceTrackName(span));
  return tid;
}

uint32_t ChromeTraceWriter::SpanTrack(const Span& span) {
  if (OnDeviceTrack(span)) return DeviceTrack(span);
  return ThreadTrack(HostThread(span));
}

Status ChromeTraceWriter::AddSpan(const Span& span) {
  const uint32_t tid = SpanTrack(span);
  std::string& out = buffer_.text();
  switch (span.status) {
    case SpanStatus::kOk:
      OpenEvent("X", tid, span.start_ns);
      out += ",\"dur\":";
      AppendMicros(out, span.duration_ns);
      break;
    case SpanStatus::kIncomplete:
      OpenEvent("X", tid, span.start_ns);
      out += ",\"dur\":";
      AppendMicros(
          out, std::max<__int128>(0, static_cast<__int128>(incomplete_end_ns_) - span.start_ns));
      break;
    case SpanStatus::kCompleteWithoutLaunch:
    case SpanStatus::kDuplicate:
      OpenEvent("i", tid, span.start_ns);
      out += ",\"s\":\"t\"";
      break;
  }
  out += ",\"name\":";
  out += json_.Get(span.name);
  out += ",\"cat\":\"";
  out += TargetKindName(static_cast<abi::TargetKind>(span.target));
  out += "\",\"args\":{\"op_id\":";
  AppendDecimal(out, span.op_id);
  out += ",\"parent_op_id\":";
  AppendDecimal(out, span.parent_op_id);
  out += ",\"tag\":";
  out += json_.Get(span.tag);
  out += ",\"src\":";
  out += json_.Get(span.srcloc);
  if (const auto device_ns = KnownDeviceDuration(span)) {
    out += ",\"device_duration_ns\":";
    AppendDecimal(out, *device_ns);
  }
  out += ",\"status\":\"";
  out += SpanStatusName(span.status);
  out += "\"}}";
  return Status::Ok();
}

Status ChromeTraceWriter::AddInstant(const Instant& instant) {
  const uint32_t tid = ThreadTrack(instant.tid);
  std::string& out = buffer_.text();
  const bool counter = static_cast<abi::EventKind>(instant.kind) == abi::EventKind::kCounter;
  OpenEvent(counter ? "C" : "i", tid, instant.ts_ns);
  if (!counter) out += ",\"s\":\"t\"";
  out += ",\"name\":";
  out += json_.Get(instant.name);
  out += ",\"cat\":\"";
  out += InstantKindName(instant.kind);
  out += "\",\"args\":{";
  if (counter) {
    // Chrome draws one counter track per args key: the counter's own name.
    out += json_.Get(instant.name);
    out += ':';
    AppendDecimal(out, instant.value);
  } else {
    out += "\"tag\":";
    out += json_.Get(instant.tag);
    out += ",\"parent_op_id\":";
    AppendDecimal(out, instant.parent_op_id);
    out += ",\"level\":\"";
    out += LevelName(static_cast<abi::LevelValue>(instant.level));
    out += '"';
  }
  out += "}}";
  return Status::Ok();
}

Status ChromeTraceWriter::Finish() {
  nlohmann::json other = nlohmann::json::object();
  VisitSessionColumns(session_, [&](std::string_view column, const auto& value) {
    if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::string_view>) {
      other[std::string(column)] = std::string(value);
    } else {
      other[std::string(column)] = value;
    }
  });
  std::string& out = buffer_.text();
  out += "\n],\"displayTimeUnit\":\"ns\",\"otherData\":";
  out += other.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  out += "}\n";
  return Status::Ok();
}

}  // namespace optrace::daemon
