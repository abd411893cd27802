#include "torch/op_id_cache.h"

namespace optrace::torch_ops {

void OpIdCache::Insert(const OpKey& key, uint64_t hash, OpIds ids) {
  const size_t set = hash & (kSets - 1);
  const uint8_t way = recent_[set] == 0 ? 1 : 0;
  Entry& entry = entries_[set][way];
  entry = Entry{};
  entry.ids = ids;
  std::memcpy(entry.key.words_, key.words_, key.used_words() * sizeof(key.words_[0]));
  recent_[set] = way;
}

}  // namespace optrace::torch_ops
