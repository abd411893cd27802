// The ranges opened with nvtxRangeStart* and not yet ended: they may end
// on any thread, by the id nvtxRangeStart returned (which is the op id).
#ifndef OPTRACE_NVTX_ASYNC_RANGES_H_
#define OPTRACE_NVTX_ASYNC_RANGES_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "instrument/loss_counter.h"

namespace optrace::nvtx {

// The names of one open range, for its COMPLETE.
struct AsyncRangeNames {
  uint32_t name_id = 0;
  uint32_t tag_id = 0;
};

// Open start/end ranges by op id. At most `max_open` are remembered; a
// range started beyond that is counted in `untracked` (it is traced but its
// end will not be found, so it shows as incomplete). An end whose id is
// not open (never started, ended twice, or untracked) is refused by Take.
// Thread-safe: sharded locks, so that threads ending ranges rarely meet.
// Borrows `untracked`, which must outlive it.
class AsyncRanges {
 public:
  AsyncRanges(size_t max_open, instrument::LossCounter& untracked);
  AsyncRanges(const AsyncRanges&) = delete;
  AsyncRanges& operator=(const AsyncRanges&) = delete;

  // Remembers the open range `op_id` (non-zero).
  void Open(uint64_t op_id, AsyncRangeNames names);

  // Forgets the open range `op_id` and returns true with its names in
  // `*names`; false when it is not open.
  bool Take(uint64_t op_id, AsyncRangeNames* names);

 private:
  static constexpr size_t kShards = 16;
  struct Shard {
    std::mutex mu;
    std::unordered_map<uint64_t, AsyncRangeNames> open;  // GUARDED_BY(mu)
  };
  Shard& ShardOf(uint64_t op_id) { return shards_[op_id % kShards]; }

  const size_t max_open_per_shard_;
  instrument::LossCounter& untracked_;
  std::array<Shard, kShards> shards_;
};

}  // namespace optrace::nvtx

#endif  // OPTRACE_NVTX_ASYNC_RANGES_H_
