// SpanFilter: a validated v1::OpFilter, compiled once per request and
// tested against every span the request reads.
#ifndef OPTRACE_DAEMON_API_SPAN_FILTER_H_
#define OPTRACE_DAEMON_API_SPAN_FILTER_H_

#include <re2/re2.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "api/flat_id_map.h"
#include "api/op_filter_check.h"
#include "api/string_cache.h"
#include "common/status.h"
#include "model/span.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::daemon {

// Name and tag patterns are matched anywhere in the text (RE2 PartialMatch),
// each distinct string once per filter: the result is cached by StringId,
// so that a pass over millions of spans of a few dozen ops runs the regex a
// few dozen times. The time range is not tested by Matches: callers hand it
// to SpanReader::ForEachSpan (min_start_ns / max_start_ns), which skips the
// pages outside it.
// Borrows `strings` (to read the texts), which must outlive the filter;
// check strings.status() after a pass. Thread rules: one thread at a time.
class SpanFilter {
 public:
  // Validates (CheckOpFilter, whose errors it returns) and compiles
  // `filter`; `field` names it in messages ("filter").
  static Result<SpanFilter> Compile(const v1::OpFilter& filter, std::string_view field,
                                    StringCache& strings);

  // Whether `span` passes every condition but the time range.
  bool Matches(const Span& span) {
    if (target_ && span.target != static_cast<uint8_t>(*target_)) return false;
    if (device_ && span.device != *device_) return false;
    if (status_ && span.status != *status_) return false;
    if (span.duration_ns < min_duration_ns_) return false;
    if (name_ && !TextMatches(*name_, span.name)) return false;
    if (tag_ && !TextMatches(*tag_, span.tag)) return false;
    return true;
  }

  // The time range, inclusive; no bound is the type's minimum / maximum.
  int64_t min_start_ns() const { return min_start_ns_; }
  int64_t max_start_ns() const { return max_start_ns_; }

 private:
  // A compiled pattern and its verdict on each string id seen so far.
  struct Pattern {
    std::unique_ptr<RE2> regex;
    FlatIdMap<uint8_t> verdicts;  // 1: matches
  };

  explicit SpanFilter(StringCache& strings) : strings_(&strings) {}

  bool TextMatches(Pattern& pattern, StringId id) {
    if (const uint8_t* verdict = pattern.verdicts.Find(id)) return *verdict != 0;
    return MatchSlow(pattern, id);
  }
  // Runs the regex on the text of `id` and caches the verdict.
  bool MatchSlow(Pattern& pattern, StringId id);

  StringCache* strings_;
  std::optional<Pattern> name_;
  std::optional<Pattern> tag_;
  std::optional<abi::TargetKind> target_;
  std::optional<uint16_t> device_;
  std::optional<SpanStatus> status_;
  uint64_t min_duration_ns_ = 0;
  int64_t min_start_ns_ = 0;
  int64_t max_start_ns_ = 0;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_API_SPAN_FILTER_H_
