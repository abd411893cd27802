// The words the CLI prints and accepts for the proto's enums: levels
// ("trace"), targets ("gpu"), devices ("gpu:0"), session states, span
// statuses, grouping and export formats. Level and target words are the
// ones the producer library and the daemon use (common/level_names.h,
// common/op_line.h), so every tool spells them alike.
#ifndef OPTRACE_CLI_PROTO_NAMES_H_
#define OPTRACE_CLI_PROTO_NAMES_H_

#include <optional>
#include <string>
#include <string_view>

#include "optrace/abi.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::cli {

// "off" ... "trace"; "-" for LEVEL_UNSPECIFIED (not set).
std::string_view LevelWord(v1::Level level);
// A level name as users type it (case-insensitive, "warn", or 0..5).
std::optional<v1::Level> ParseLevelWord(std::string_view text);

// "cpu", "gpu", "other"; "none" for TARGET_UNSPECIFIED.
std::string_view TargetWord(v1::Target target);
// "cpu", "gpu" or "other".
std::optional<v1::Target> ParseTargetWord(std::string_view text);
// "cpu, gpu, other", for help and error messages.
std::string TargetWordList();
// The shared-memory ABI's kind for `target`, for the shared line format.
abi::TargetKind ToTargetKind(v1::Target target);

// "gpu:0"; with `with_stream` and a non-default stream, "gpu:0/s7".
std::string DeviceWord(const v1::Device& device, bool with_stream = false);

// "running", "exited", "crashed"; "unknown".
std::string_view SessionStateWord(v1::SessionState state);

// "aggregates", "spans"; "-" (unspecified: fleet statistics).
std::string_view StatsSourceWord(v1::StatsSource source);

// "grpc", "metrics"; "unknown".
std::string_view ListenerKindWord(v1::ListenerKind kind);

// "ok", "incomplete", "complete-without-launch", "duplicate"; "unknown".
std::string_view SpanStatusWord(v1::SpanStatus status);
std::optional<v1::SpanStatus> ParseSpanStatusWord(std::string_view text);
std::string SpanStatusWordList();

// "name", "tag", "target".
std::optional<v1::GroupBy> ParseGroupByWord(std::string_view text);
std::string GroupByWordList();
// "total", "self": the orders of statistics rows.
std::optional<v1::StatsSort> ParseStatsSortWord(std::string_view text);
std::string StatsSortWordList();
// "name" or "tag": the groupings two sessions can be compared by.
std::optional<v1::GroupBy> ParseCompareByWord(std::string_view text);
std::string CompareByWordList();

// "chrome", "csv", "sqlite".
std::optional<v1::ExportFormat> ParseExportFormatWord(std::string_view text);
std::string ExportFormatWordList();
// What a format is, for messages: "Chrome trace JSON", "CSV", "SQLite database".
std::string_view ExportFormatDescription(v1::ExportFormat format);

// The ABI's event kind for `kind`; nullopt for KIND_UNSPECIFIED or a kind
// this CLI does not know (a newer daemon).
std::optional<abi::EventKind> ToEventKind(v1::LiveEvent::Kind kind);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_PROTO_NAMES_H_
