// The process's string table: interned names, tags and source locations.
#ifndef OPTRACE_CLIENT_STRING_INTERNER_H_
#define OPTRACE_CLIENT_STRING_INTERNER_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "producer_segment.h"

namespace optrace::client {

// Assigns each distinct string a stable id and publishes it into the
// segment's append-only table. Ids are process-local and survive fork(): a
// child's new segment is filled with the same strings under the same ids, so
// ids cached by call sites stay valid. Thread-safe (one mutex; cold path).
class StringInterner {
 public:
  StringInterner(uint32_t max_strings, uint32_t max_blob_bytes);

  // Returns the id of `text` (truncated to kMaxStringBytes): 0 for empty
  // text, 1 (kStringTableFull) when the table is full, counted in the
  // segment's strings_dropped.
  uint32_t Intern(std::string_view text);

  // A copy of string `id`, or "" for unknown ids.
  std::string Lookup(uint32_t id);

  // Publishes every string interned so far into `segment` (ids 0 and 1
  // included) and sends later ones there too. REQUIRES: `segment` outlives
  // its use here; pass nullptr to detach (after fork, in the child).
  void AttachSegment(ProducerSegment* segment);

  // fork() support: the prepare handler locks, the parent and child
  // handlers unlock, so that a child never inherits a held lock.
  void LockForFork();
  void UnlockAfterFork();

 private:
  // REQUIRES: mu_ held. Writes string `id` into the segment's table.
  void PublishLocked(uint32_t id);

  const uint32_t max_strings_;
  const uint32_t max_blob_bytes_;
  std::mutex mu_;
  std::vector<std::string> strings_;                   // GUARDED_BY(mu_); index = id
  std::unordered_map<std::string, uint32_t> ids_;      // GUARDED_BY(mu_)
  uint64_t blob_used_ = 0;                             // GUARDED_BY(mu_)
  ProducerSegment* segment_ = nullptr;                 // GUARDED_BY(mu_)
  uint32_t segment_blob_used_ = 0;                     // GUARDED_BY(mu_)
};

}  // namespace optrace::client

#endif  // OPTRACE_CLIENT_STRING_INTERNER_H_
