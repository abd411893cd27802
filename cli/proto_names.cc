#include "proto_names.h"

#include <array>
#include <utility>

#include "common/level_names.h"
#include "common/op_line.h"
#include "optrace/v1/level_numbers.h"
#include "optrace/v1/target_numbers.h"

namespace optrace::cli {
namespace {

template <typename Enum, size_t N>
std::optional<Enum> FindWord(const std::array<std::pair<std::string_view, Enum>, N>& words,
                             std::string_view text) {
  for (const auto& [word, value] : words) {
    if (word == text) return value;
  }
  return std::nullopt;
}

template <typename Enum, size_t N>
std::string_view WordOf(const std::array<std::pair<std::string_view, Enum>, N>& words, Enum value,
                        std::string_view fallback) {
  for (const auto& [word, v] : words) {
    if (v == value) return word;
  }
  return fallback;
}

// "a, b, c" of the words of `words`.
template <typename Enum, size_t N>
std::string ListOf(const std::array<std::pair<std::string_view, Enum>, N>& words) {
  std::string list;
  for (const auto& [word, value] : words) {
    if (!list.empty()) list += ", ";
    list += word;
  }
  return list;
}

constexpr std::array<std::pair<std::string_view, v1::SpanStatus>, 4> kSpanStatusWords = {{
    {"ok", v1::SPAN_STATUS_OK},
    {"incomplete", v1::SPAN_STATUS_INCOMPLETE},
    {"complete-without-launch", v1::SPAN_STATUS_COMPLETE_WITHOUT_LAUNCH},
    {"duplicate", v1::SPAN_STATUS_DUPLICATE},
}};
constexpr std::array<std::pair<std::string_view, v1::SessionState>, 3> kSessionStateWords = {{
    {"running", v1::SESSION_STATE_RUNNING},
    {"exited", v1::SESSION_STATE_EXITED},
    {"crashed", v1::SESSION_STATE_CRASHED},
}};
constexpr std::array<std::pair<std::string_view, v1::StatsSource>, 2> kStatsSourceWords = {{
    {"aggregates", v1::STATS_SOURCE_AGGREGATES},
    {"spans", v1::STATS_SOURCE_SPANS},
}};
constexpr std::array<std::pair<std::string_view, v1::ListenerKind>, 2> kListenerKindWords = {{
    {"grpc", v1::LISTENER_KIND_GRPC},
    {"metrics", v1::LISTENER_KIND_METRICS},
}};
constexpr std::array<std::pair<std::string_view, v1::GroupBy>, 3> kGroupByWords = {{
    {"name", v1::GROUP_BY_NAME},
    {"tag", v1::GROUP_BY_TAG},
    {"target", v1::GROUP_BY_TARGET},
}};
constexpr std::array<std::pair<std::string_view, v1::StatsSort>, 2> kStatsSortWords = {{
    {"total", v1::STATS_SORT_TOTAL},
    {"self", v1::STATS_SORT_SELF},
}};
constexpr std::array<std::pair<std::string_view, v1::GroupBy>, 2> kCompareByWords = {{
    {"name", v1::GROUP_BY_NAME},
    {"tag", v1::GROUP_BY_TAG},
}};
constexpr std::array<std::pair<std::string_view, v1::ExportFormat>, 4> kExportFormatWords = {{
    {"chrome", v1::EXPORT_FORMAT_CHROME_JSON},
    {"perfetto", v1::EXPORT_FORMAT_PERFETTO},
    {"csv", v1::EXPORT_FORMAT_CSV},
    {"sqlite", v1::EXPORT_FORMAT_SQLITE},
}};

}  // namespace

std::string_view LevelWord(v1::Level level) {
  if (level == v1::LEVEL_UNSPECIFIED) return "-";
  return LevelName(static_cast<abi::LevelValue>(static_cast<int>(level) - v1::kLevelOffset));
}

std::optional<v1::Level> ParseLevelWord(std::string_view text) {
  const std::optional<abi::LevelValue> level = ParseLevel(text);
  if (!level) return std::nullopt;
  return static_cast<v1::Level>(static_cast<int>(*level) + v1::kLevelOffset);
}

abi::TargetKind ToTargetKind(v1::Target target) {
  return v1::KindFromTarget(target).value_or(abi::TargetKind::kNone);
}

std::string_view TargetWord(v1::Target target) { return TargetKindName(ToTargetKind(target)); }

std::optional<v1::Target> ParseTargetWord(std::string_view text) {
  abi::TargetKind kind{};
  if (!ParseTargetKind(text, &kind)) return std::nullopt;
  return v1::TargetFromKind(kind);
}

std::string TargetWordList() {
  std::string list;
  for (v1::Target t : {v1::TARGET_CPU, v1::TARGET_GPU, v1::TARGET_OTHER}) {
    if (!list.empty()) list += ", ";
    list += TargetWord(t);
  }
  return list;
}

std::string DeviceWord(const v1::Device& device, bool with_stream) {
  std::string word =
      std::string(TargetWord(device.target())) + ":" + std::to_string(device.ordinal());
  if (with_stream && device.stream() != 0) word += "/s" + std::to_string(device.stream());
  return word;
}

std::string_view SessionStateWord(v1::SessionState state) {
  return WordOf(kSessionStateWords, state, "unknown");
}

std::string_view StatsSourceWord(v1::StatsSource source) {
  return WordOf(kStatsSourceWords, source, "-");
}

std::string_view ListenerKindWord(v1::ListenerKind kind) {
  return WordOf(kListenerKindWords, kind, "unknown");
}

std::string_view SpanStatusWord(v1::SpanStatus status) {
  return WordOf(kSpanStatusWords, status, "unknown");
}

std::optional<v1::SpanStatus> ParseSpanStatusWord(std::string_view text) {
  return FindWord(kSpanStatusWords, text);
}

std::string SpanStatusWordList() { return ListOf(kSpanStatusWords); }

std::optional<v1::GroupBy> ParseGroupByWord(std::string_view text) {
  return FindWord(kGroupByWords, text);
}

std::string GroupByWordList() { return ListOf(kGroupByWords); }

std::optional<v1::StatsSort> ParseStatsSortWord(std::string_view text) {
  return FindWord(kStatsSortWords, text);
}

std::string StatsSortWordList() { return ListOf(kStatsSortWords); }

std::optional<v1::GroupBy> ParseCompareByWord(std::string_view text) {
  return FindWord(kCompareByWords, text);
}

std::string CompareByWordList() { return ListOf(kCompareByWords); }

std::optional<v1::ExportFormat> ParseExportFormatWord(std::string_view text) {
  return FindWord(kExportFormatWords, text);
}

std::string ExportFormatWordList() { return ListOf(kExportFormatWords); }

std::string_view ExportFormatDescription(v1::ExportFormat format) {
  switch (format) {
    case v1::EXPORT_FORMAT_CHROME_JSON:
      return "Chrome trace JSON";
    case v1::EXPORT_FORMAT_PERFETTO:
      return "Perfetto trace";
    case v1::EXPORT_FORMAT_CSV:
      return "CSV";
    case v1::EXPORT_FORMAT_SQLITE:
      return "SQLite database";
    default:
      return "unknown format";
  }
}

std::optional<abi::EventKind> ToEventKind(v1::LiveEvent::Kind kind) {
  switch (kind) {
    case v1::LiveEvent::KIND_LAUNCH:
      return abi::EventKind::kLaunch;
    case v1::LiveEvent::KIND_COMPLETE:
      return abi::EventKind::kComplete;
    case v1::LiveEvent::KIND_MARK:
      return abi::EventKind::kMark;
    case v1::LiveEvent::KIND_COUNTER:
      return abi::EventKind::kCounter;
    default:
      return std::nullopt;
  }
}

}  // namespace optrace::cli
