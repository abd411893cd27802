// The latency trigger of keeps: an op of a configured name (and tag)
// slower than its rule's threshold keeps the window around it. Compiled
// once: a rule is matched by string id, so each committed span costs one
// lookup of its name id (none without rules).
#ifndef OPTRACE_DAEMON_STORAGE_LATENCY_KEEP_H_
#define OPTRACE_DAEMON_STORAGE_LATENCY_KEEP_H_

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "model/flat_id_map.h"
#include "model/keep.h"
#include "model/store_batch.h"

namespace optrace::daemon {

// Turns committed spans into keep requests by the rules it was built with.
// Thread rules: one thread (the store's writer).
class LatencyKeepRules {
 public:
  // `rules` as configured; a matching op keeps from `keep_before_ns` before
  // its start to `keep_after_ns` after its end.
  LatencyKeepRules(std::vector<KeepRule> rules, int64_t keep_before_ns, int64_t keep_after_ns);

  bool empty() const { return rules_.empty(); }

  // The strings a rule names (names and tags), to resolve ids of strings
  // stored before this daemon started (NoteStrings them).
  std::vector<std::string> RuleStrings() const;

  // Learns the ids of dictionary entries: those equal to a rule's name or
  // tag make its spans match. Call with every batch's new_strings.
  void NoteStrings(std::span<const std::pair<StringId, std::string>> strings);

  // One request per run of overlapping matches of a session in `batch`: a
  // span whose name (and tag, when the rule has one) is a rule's and whose
  // duration is above its slower_than_ns, reason "slow: NAME".
  std::vector<KeepRequest> Keeps(const StoreBatch& batch);

 private:
  struct Compiled {
    KeepRule rule;
    StringId tag_id = 0;  // 0 while the tag is unknown (or for no tag)
  };

  std::vector<Compiled> rules_;
  const int64_t keep_before_ns_;
  const int64_t keep_after_ns_;
  FlatIdMap<std::vector<size_t>> by_name_;  // name id -> its rules (indexes into rules_)
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_LATENCY_KEEP_H_
