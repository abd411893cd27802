// An append-only table of texts that one thread appends to and any thread
// reads without a lock: what live tails resolve daemon string ids and
// session labels through.
#ifndef OPTRACE_DAEMON_LIVE_PUBLISHED_STRINGS_H_
#define OPTRACE_DAEMON_LIVE_PUBLISHED_STRINGS_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace optrace::daemon {

// Thread rules: Append from one writer thread only; size() and Text() from
// any thread. A text never moves or changes once appended: chunks double
// in size and are never reallocated, so a reference from Text() stays
// valid for the table's life.
class PublishedStrings {
 public:
  PublishedStrings() = default;
  ~PublishedStrings();
  PublishedStrings(const PublishedStrings&) = delete;
  PublishedStrings& operator=(const PublishedStrings&) = delete;

  // Writer only: appends `text` as id size() and publishes it. Returns the
  // id. REQUIRES: size() < kMaxSize.
  uint32_t Append(std::string_view text);

  // The number of texts published: ids [0, size()) resolve.
  uint32_t size() const { return size_.load(std::memory_order_acquire); }

  // The text of `id`, or "" when `id` is not published (yet).
  const std::string& Text(uint32_t id) const;

  static constexpr uint32_t kMaxSize = 0xFFFFFFFFu;

 private:
  // Chunk k holds ids [kFirstChunk * (2^k - 1), kFirstChunk * (2^(k+1) - 1)).
  static constexpr uint64_t kFirstChunk = 256;
  static constexpr int kChunks = 25;  // kFirstChunk * (2^25 - 1) > kMaxSize
  static int ChunkOf(uint64_t id, uint64_t* offset);

  std::atomic<std::string*> chunks_[kChunks] = {};
  std::atomic<uint32_t> size_{0};
  const std::string empty_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_LIVE_PUBLISHED_STRINGS_H_
