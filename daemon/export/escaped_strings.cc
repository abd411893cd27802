#include "export/escaped_strings.h"

namespace optrace::daemon {

const std::string& EscapedStrings::Add(StringId id) {
  index_.Insert(id, static_cast<uint32_t>(escaped_.size()));
  return escaped_.emplace_back(escape_(strings_.Get(id)));
}

}  // namespace optrace::daemon
