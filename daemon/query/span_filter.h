// SpanFilter: a validated v1::OpFilter, compiled once per request and
// tested against every span the request reads.
#ifndef OPTRACE_DAEMON_QUERY_SPAN_FILTER_H_
#define OPTRACE_DAEMON_QUERY_SPAN_FILTER_H_

#include <re2/re2.h>

#include <cstdint>
#include <string_view>
#include <utility>

#include "common/status.h"
#include "model/flat_id_map.h"
#include "model/span.h"
#include "optrace/v1/optrace.pb.h"
#include "storage/span_page_codec.h"
#include "wire/op_filter_check.h"
#include "wire/string_cache.h"

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
    const CheckedOpFilter& c = conditions_;
    if (c.target && span.target != static_cast<uint8_t>(*c.target)) return false;
    if (c.device && span.device != *c.device) return false;
    if (c.status && span.status != *c.status) return false;
    if (span.duration_ns < c.min_duration_ns) return false;
    if (c.name && !TextMatches(*c.name, name_verdicts_, span.name)) return false;
    if (c.tag && !TextMatches(*c.tag, tag_verdicts_, span.tag)) return false;
    return true;
  }

  // The span columns Matches reads (the time range's is ForEachSpan's).
  span_page::ColumnSet Columns() const {
    const CheckedOpFilter& c = conditions_;
    span_page::ColumnSet columns = 0;
    if (c.target) columns |= span_page::kTarget;
    if (c.device) columns |= span_page::kDevice;
    if (c.status) columns |= span_page::kStatus;
    if (c.min_duration_ns > 0) columns |= span_page::kDurationNs;
    if (c.name) columns |= span_page::kName;
    if (c.tag) columns |= span_page::kTag;
    return columns;
  }

  // The time range, inclusive; no bound is the type's minimum / maximum.
  int64_t min_start_ns() const { return conditions_.min_start_ns; }
  int64_t max_start_ns() const { return conditions_.max_start_ns; }

 private:
  // A pattern's verdict on each string id seen so far (1: matches).
  using Verdicts = FlatIdMap<uint8_t>;

  SpanFilter(CheckedOpFilter conditions, StringCache& strings)
      : conditions_(std::move(conditions)), strings_(&strings) {}

  bool TextMatches(const RE2& regex, Verdicts& verdicts, StringId id) {
    if (const uint8_t* verdict = verdicts.Find(id)) return *verdict != 0;
    return MatchSlow(regex, verdicts, id);
  }
  // Runs `regex` on the text of `id` and caches the verdict in `verdicts`.
  bool MatchSlow(const RE2& regex, Verdicts& verdicts, StringId id);

  CheckedOpFilter conditions_;
  Verdicts name_verdicts_;  // of conditions_.name
  Verdicts tag_verdicts_;   // of conditions_.tag
  StringCache* strings_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_SPAN_FILTER_H_
