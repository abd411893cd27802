// The daemon's string dictionary: one id per distinct text across all
// sessions, so stored spans carry small integers.
#ifndef OPTRACE_DAEMON_STRINGS_STRING_DICTIONARY_H_
#define OPTRACE_DAEMON_STRINGS_STRING_DICTIONARY_H_

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/span.h"

namespace optrace::daemon {

// Thread rules: the drain thread only.
class StringDictionary {
 public:
  // Adopts the dictionary a previous daemon stored (ResumeState::strings).
  void Load(const std::vector<std::pair<StringId, std::string>>& stored);

  // The id of `text` ("" is 0). A text seen for the first time gets the next
  // id and is remembered until TakeAdditions().
  StringId Intern(const std::string& text);

  // The texts added since the last call, for the next StoreBatch.
  std::vector<std::pair<StringId, std::string>> TakeAdditions();

  // Puts back additions whose batch was shed, so the next batch stores them.
  void ReturnAdditions(std::vector<std::pair<StringId, std::string>> additions);

  // The text of `id` ("" when unknown).
  const std::string& Text(StringId id) const;

 private:
  std::unordered_map<std::string, StringId> ids_;
  std::vector<std::string> texts_{std::string()};  // index = id
  std::vector<std::pair<StringId, std::string>> additions_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STRINGS_STRING_DICTIONARY_H_
