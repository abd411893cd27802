#include "query/span_filter.h"

#include <utility>

namespace optrace::daemon {

Result<SpanFilter> SpanFilter::Compile(const v1::OpFilter& filter, std::string_view field,
                                       StringCache& strings) {
  Result<CheckedOpFilter> checked = CheckOpFilter(filter, field);
  if (!checked.ok()) return checked.status();
  return SpanFilter(std::move(checked).value(), strings);
}

bool SpanFilter::MatchSlow(const RE2& regex, Verdicts& verdicts, StringId id) {
  const std::string& text = strings_->Get(id);
  const bool matches = RE2::PartialMatch(text, regex);
  verdicts.Insert(id, matches ? 1 : 0);
  return matches;
}

}  // namespace optrace::daemon
