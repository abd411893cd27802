#include "wire/op_filter_check.h"

#include <limits>
#include <string>
#include <utility>

#include "wire/proto_convert.h"

namespace optrace::daemon {
namespace {

// RE2's memory budget per compiled pattern (its DFA cache included); a
// pattern that needs more fails to compile instead of growing the daemon.
constexpr int64_t kPatternMaxMemBytes = 8 << 20;

std::string Quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

}  // namespace

Result<std::unique_ptr<RE2>> CompilePattern(std::string_view pattern_untrusted,
                                            std::string_view field) {
  if (pattern_untrusted.size() > kMaxPatternBytes) {
    return Status::InvalidArgument(
        std::string(field) + " is " + std::to_string(pattern_untrusted.size()) +
        " bytes long; at most " + std::to_string(kMaxPatternBytes) + " are allowed");
  }
  RE2::Options options;
  options.set_log_errors(false);  // the error goes back to the caller instead
  options.set_max_mem(kPatternMaxMemBytes);
  auto regex = std::make_unique<RE2>(
      re2::StringPiece(pattern_untrusted.data(), pattern_untrusted.size()), options);
  if (!regex->ok()) {
    return Status::InvalidArgument(std::string(field) + " " + Quoted(pattern_untrusted) +
                                   " is not a valid RE2 pattern: " + regex->error());
  }
  return regex;
}

Result<CheckedOpFilter> CheckOpFilter(const v1::OpFilter& filter, std::string_view field) {
  const std::string prefix = std::string(field) + ".";
  CheckedOpFilter checked;
  struct PatternField {
    const std::string& text;
    const char* name;
    std::unique_ptr<RE2>* out;
  };
  const PatternField patterns[] = {
      {filter.name_pattern(), "name_pattern", &checked.name},
      {filter.tag_pattern(), "tag_pattern", &checked.tag},
  };
  for (const PatternField& pattern : patterns) {
    if (pattern.text.empty()) continue;
    Result<std::unique_ptr<RE2>> regex = CompilePattern(pattern.text, prefix + pattern.name);
    if (!regex.ok()) return regex.status();
    *pattern.out = std::move(regex).value();
  }
  if (filter.target() != v1::TARGET_UNSPECIFIED) {
    checked.target = TargetFromProto(filter.target());
    if (!checked.target) {
      return Status::InvalidArgument(prefix + "target " + std::to_string(filter.target()) +
                                     " is not a known Target");
    }
  }
  if (filter.has_device()) {
    if (filter.device() > std::numeric_limits<uint16_t>::max()) {
      return Status::InvalidArgument(prefix + "device " + std::to_string(filter.device()) +
                                     " is above the largest device ordinal, " +
                                     std::to_string(std::numeric_limits<uint16_t>::max()));
    }
    checked.device = static_cast<uint16_t>(filter.device());
  }
  if (filter.status() != v1::SPAN_STATUS_UNSPECIFIED) {
    checked.status = StatusFromProto(filter.status());
    if (!checked.status) {
      return Status::InvalidArgument(prefix + "status " + std::to_string(filter.status()) +
                                     " is not a known SpanStatus");
    }
  }
  checked.min_duration_ns = filter.min_duration_ns();
  // 0 means "no bound" for both ends (see the proto).
  checked.min_start_ns = filter.start_min_unix_ns() != 0 ? filter.start_min_unix_ns()
                                                         : std::numeric_limits<int64_t>::min();
  checked.max_start_ns = filter.start_max_unix_ns() != 0 ? filter.start_max_unix_ns()
                                                         : std::numeric_limits<int64_t>::max();
  if (checked.min_start_ns > checked.max_start_ns) {
    return Status::InvalidArgument(
        prefix + "start_min_unix_ns " + std::to_string(filter.start_min_unix_ns()) +
        " is after start_max_unix_ns " + std::to_string(filter.start_max_unix_ns()) +
        ": the time range is empty");
  }
  return checked;
}

}  // namespace optrace::daemon
