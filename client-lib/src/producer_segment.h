// The producer's own shared-memory segment: creation, layout, removal.
#ifndef OPTRACE_CLIENT_PRODUCER_SEGMENT_H_
#define OPTRACE_CLIENT_PRODUCER_SEGMENT_H_

#include <memory>
#include <string>

#include "optrace/abi.h"
#include "producer_options.h"

namespace optrace::client {

// A segment this process created and maps read-write, with the liveness
// lock held on it (common/producer_lock.h). Move-only; the destructor
// unmaps and closes the lock's descriptor but never removes the
// shared-memory object or unlocks it (a consumer may still need the one,
// and a fork child must leave its parent's alone).
class ProducerSegment {
 public:
  // Creates "/<ns>.<uid>.<pid>.<nonce>" with mode 0600, takes the liveness
  // lock (when the file system allows it: the header's `liveness` says
  // which), reserves its memory (so that a full /dev/shm fails here, not
  // with SIGBUS later), maps it and writes the immutable header with state
  // kReady, the requested level field set to `requested_level` and the live
  // level word to `initial_level`. On failure returns nullptr and sets `*error` to
  // a sentence naming the segment and the cause. Never throws.
  static std::unique_ptr<ProducerSegment> Create(const ProducerOptions& options,
                                                 abi::LevelValue requested_level,
                                                 abi::LevelValue initial_level, std::string* error);
  ~ProducerSegment();
  ProducerSegment(const ProducerSegment&) = delete;
  ProducerSegment& operator=(const ProducerSegment&) = delete;

  const std::string& name() const { return name_; }
  abi::SegmentHeader& header() { return *header_; }
  abi::RingHeader& ring(uint32_t index);
  abi::OpEvent* slots(uint32_t index);
  abi::StringEntry* string_entries();
  char* string_blob();
  // The listing area (header().listing_slots entries; none when 0).
  abi::ListingEntry* listing_entries();
  char* listing_blob();

  // Removes the shared-memory name (the mapping stays valid). Idempotent.
  void Unlink();

 private:
  struct Mapping;  // the Boost.Interprocess region, kept out of this header
  ProducerSegment(std::string name, std::unique_ptr<Mapping> mapping, int lock_fd);
  std::string name_;
  std::unique_ptr<Mapping> mapping_;
  char* base_;
  abi::SegmentHeader* header_;
  int lock_fd_ = -1;  // holds the liveness lock; -1 without one
  bool unlinked_ = false;
};

}  // namespace optrace::client

#endif  // OPTRACE_CLIENT_PRODUCER_SEGMENT_H_
