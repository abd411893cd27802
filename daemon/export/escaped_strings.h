// EscapedStrings: dictionary strings in the escaped form of one output
// format (a JSON string, a CSV field), each escaped once per export.
#ifndef OPTRACE_DAEMON_EXPORT_ESCAPED_STRINGS_H_
#define OPTRACE_DAEMON_EXPORT_ESCAPED_STRINGS_H_

#include <string>
#include <string_view>
#include <vector>

#include "model/flat_id_map.h"
#include "model/span.h"
#include "wire/string_cache.h"

namespace optrace::daemon {

// Turns a text into its escaped form (pure).
using EscapeFunction = std::string (*)(std::string_view text);

// Borrows `strings`, which must outlive it (check its status() after the
// export). Thread rules: one thread at a time.
class EscapedStrings {
 public:
  EscapedStrings(StringCache& strings, EscapeFunction escape)
      : strings_(strings), escape_(escape) {}

  // escape(text of `id`); the reference stays valid until the next Get.
  const std::string& Get(StringId id) {
    if (const uint32_t* at = index_.Find(id)) return escaped_[*at];
    return Add(id);
  }

 private:
  const std::string& Add(StringId id);

  StringCache& strings_;
  const EscapeFunction escape_;
  FlatIdMap<uint32_t> index_;  // id -> index in escaped_
  std::vector<std::string> escaped_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_EXPORT_ESCAPED_STRINGS_H_
