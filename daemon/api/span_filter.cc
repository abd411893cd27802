#include "api/span_filter.h"

#include <utility>

namespace optrace::daemon {

Result<SpanFilter> SpanFilter::Compile(const v1::OpFilter& filter, std::string_view field,
                                       StringCache& strings) {
  Result<CheckedOpFilter> checked = CheckOpFilter(filter, field);
  if (!checked.ok()) return checked.status();
  CheckedOpFilter& c = checked.value();
  SpanFilter compiled(strings);
  if (c.name) compiled.name_.emplace(Pattern{std::move(c.name), {}});
  if (c.tag) compiled.tag_.emplace(Pattern{std::move(c.tag), {}});
  compiled.target_ = c.target;
  compiled.device_ = c.device;
  compiled.status_ = c.status;
  compiled.min_duration_ns_ = c.min_duration_ns;
  compiled.min_start_ns_ = c.min_start_ns;
  compiled.max_start_ns_ = c.max_start_ns;
  return compiled;
}

bool SpanFilter::MatchSlow(Pattern& pattern, StringId id) {
  const std::string& text = strings_->Get(id);
  const bool matches = RE2::PartialMatch(text, *pattern.regex);
  pattern.verdicts.Insert(id, matches ? 1 : 0);
  return matches;
}

}  // namespace optrace::daemon
