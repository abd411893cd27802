#include "strings/string_dictionary.h"

namespace optrace::daemon {

void StringDictionary::Load(const std::vector<std::pair<StringId, std::string>>& stored) {
  for (const auto& [id, text] : stored) {
    if (id == 0) continue;
    if (texts_.size() <= id) texts_.resize(id + 1);
    texts_[id] = text;
    ids_.emplace(text, id);
  }
}

StringId StringDictionary::Intern(const std::string& text) {
  if (text.empty()) return 0;
  if (auto it = ids_.find(text); it != ids_.end()) return it->second;
  const auto id = static_cast<StringId>(texts_.size());
  texts_.push_back(text);
  ids_.emplace(text, id);
  additions_.emplace_back(id, text);
  return id;
}

std::vector<std::pair<StringId, std::string>> StringDictionary::TakeAdditions() {
  return std::exchange(additions_, {});
}

void StringDictionary::ReturnAdditions(std::vector<std::pair<StringId, std::string>> additions) {
  additions.insert(additions.end(), additions_.begin(), additions_.end());
  additions_ = std::move(additions);
}

const std::string& StringDictionary::Text(StringId id) const {
  return id < texts_.size() ? texts_[id] : texts_[0];
}

}  // namespace optrace::daemon
