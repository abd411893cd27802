#include "tail_line.h"

#include <fmt/core.h>

#include "common/op_line.h"
#include "human_format.h"
#include "proto_names.h"

namespace optrace::cli {
namespace {

// Appends " key=value" when `value` is not empty.
void AppendField(std::string* line, std::string_view key, std::string_view value) {
  if (value.empty()) return;
  line->append(" ").append(key).append("=").append(value);
}

// Appends " key=<duration>" when the duration is known (0 ns included).
void AppendDuration(std::string* line, std::string_view key, bool known, uint64_t ns) {
  if (known) AppendField(line, key, FormatDuration(ns, UnitSpacing::kCompact));
}

// Paints the first `prefix_length` bytes of `line` in `tone`.
std::string PaintPrefix(const std::string& line, size_t prefix_length, Tone tone,
                        const Palette& palette) {
  return palette.Paint(std::string_view(line).substr(0, prefix_length), tone) +
         line.substr(prefix_length);
}

std::string EventLine(const v1::LiveEvent& event, bool verbose, const Palette& palette) {
  const std::optional<abi::EventKind> kind = ToEventKind(event.kind());
  if (!kind)
    return fmt::format("[?] event of unknown kind {} [id={}]", static_cast<int>(event.kind()),
                       event.op_id());
  std::string line =
      FormatOpLine(*kind, event.name(), event.op_id(), ToTargetKind(event.device().target()),
                   event.device().ordinal(), event.value());
  if (verbose) {
    AppendField(&line, "pid", std::to_string(event.pid()));
    AppendField(&line, "tag", event.tag());
    if (*kind == abi::EventKind::kComplete) {
      AppendDuration(&line, "dur", event.has_duration_ns(), event.duration_ns());
      AppendDuration(&line, "device_dur", event.has_device_duration_ns(),
                     event.device_duration_ns());
    }
    AppendField(&line, "src", event.source_location());
  }
  // "[OP] LAUNCH", "[OP] COMPLETE", "[MARK]" or "[COUNTER]".
  const size_t words = line.find(' ', line.find(' ') + 1);
  switch (*kind) {
    case abi::EventKind::kLaunch:
      return PaintPrefix(line, words, Tone::kLaunch, palette);
    case abi::EventKind::kComplete:
      // A COMPLETE whose LAUNCH was never seen is half an op.
      return PaintPrefix(line, words,
                         event.has_duration_ns() || event.has_device_duration_ns() ? Tone::kComplete
                                                                                   : Tone::kWarning,
                         palette);
    case abi::EventKind::kMark:
    case abi::EventKind::kCounter:
      return PaintPrefix(line, line.find(' '), Tone::kMark, palette);
  }
  return line;
}

std::string SpanLine(const v1::Span& span, bool verbose, const Palette& palette) {
  std::string line = fmt::format("[SPAN] {} [id={}] target={}", span.name(), span.op_id(),
                                 DeviceWord(span.device()));
  const bool ok = span.status() == v1::SPAN_STATUS_OK;
  AppendDuration(&line, "dur", span.has_duration_ns(), span.duration_ns());
  if (!ok) AppendField(&line, "status", SpanStatusWord(span.status()));
  if (verbose) {
    AppendField(&line, "session", std::to_string(span.session_id()));
    AppendField(&line, "tag", span.tag());
    AppendDuration(&line, "device_dur", span.has_device_duration_ns(), span.device_duration_ns());
    AppendField(&line, "src", span.source_location());
  }
  return PaintPrefix(line, line.find(' '), ok ? Tone::kComplete : Tone::kProblem, palette);
}

}  // namespace

std::string FormatTailLine(const v1::TailResponse& item, bool verbose, const Palette& palette) {
  switch (item.item_case()) {
    case v1::TailResponse::kEvent:
      return EventLine(item.event(), verbose, palette);
    case v1::TailResponse::kSpan:
      return SpanLine(item.span(), verbose, palette);
    case v1::TailResponse::kLag:
      return palette.Paint(fmt::format("[LAG] lagged, {} events skipped", item.lag().skipped()),
                           Tone::kProblem);
    default:
      return "[?] an item this optrace does not know; is the daemon newer?";
  }
}

}  // namespace optrace::cli
