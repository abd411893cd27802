#include "query/fused_tag.h"

namespace optrace::daemon {

bool IsFusedTag(std::string_view tag) {
  return tag.find(kFusedTagSeparator) != std::string_view::npos;
}

std::vector<std::string_view> SplitFusedTag(std::string_view tag) {
  std::vector<std::string_view> parts;
  size_t begin = 0;
  for (;;) {
    const size_t end = tag.find(kFusedTagSeparator, begin);
    if (end == std::string_view::npos) break;
    parts.push_back(tag.substr(begin, end - begin));
    begin = end + 1;
  }
  parts.push_back(tag.substr(begin));
  return parts;
}

}  // namespace optrace::daemon
