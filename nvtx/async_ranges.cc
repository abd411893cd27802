#include "nvtx/async_ranges.h"

#include <algorithm>

namespace optrace::nvtx {

AsyncRanges::AsyncRanges(size_t max_open, instrument::LossCounter& untracked)
    : max_open_per_shard_(std::max<size_t>(1, max_open / kShards)), untracked_(untracked) {}

void AsyncRanges::Open(uint64_t op_id, AsyncRangeNames names) {
  Shard& shard = ShardOf(op_id);
  {
    std::lock_guard<std::mutex> lock(shard.mu);
    if (shard.open.size() < max_open_per_shard_) {
      try {
        shard.open.emplace(op_id, names);
        return;
      } catch (...) {  // allocation failure: count it as untracked below
      }
    }
  }
  untracked_.Add();
}

bool AsyncRanges::Take(uint64_t op_id, AsyncRangeNames* names) {
  Shard& shard = ShardOf(op_id);
  std::lock_guard<std::mutex> lock(shard.mu);
  auto it = shard.open.find(op_id);
  if (it == shard.open.end()) return false;
  *names = it->second;
  shard.open.erase(it);
  return true;
}

}  // namespace optrace::nvtx
