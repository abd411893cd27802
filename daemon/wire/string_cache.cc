#include "wire/string_cache.h"

#include <optional>

namespace optrace::daemon {

const std::string& StringCache::Get(StringId id) {
  if (id == 0) return empty_;
  if (const std::string** cached = index_.Find(id)) return **cached;
  Result<std::optional<std::string>> text = reader_.String(id);
  if (!text.ok()) {
    // Not cached: a later Get of the same id tries again, and the pass
    // fails on status() anyway.
    if (status_.ok()) status_ = text.status();
    return empty_;
  }
  const std::string& stored = texts_.emplace_back(text->value_or(std::string()));
  index_.Insert(id, &stored);
  return stored;
}

}  // namespace optrace::daemon
