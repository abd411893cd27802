#include "live/published_strings.h"

#include <bit>

namespace optrace::daemon {

PublishedStrings::~PublishedStrings() {
  for (auto& chunk : chunks_) delete[] chunk.load(std::memory_order_relaxed);
}

int PublishedStrings::ChunkOf(uint64_t id, uint64_t* offset) {
  const uint64_t j = id / kFirstChunk + 1;
  const int k = std::bit_width(j) - 1;
  *offset = id - kFirstChunk * ((uint64_t{1} << k) - 1);
  return k;
}

uint32_t PublishedStrings::Append(std::string_view text) {
  const uint32_t id = size_.load(std::memory_order_relaxed);  // the writer's own value
  uint64_t offset = 0;
  const int k = ChunkOf(id, &offset);
  std::string* chunk = chunks_[k].load(std::memory_order_relaxed);
  if (chunk == nullptr) {
    chunk = new std::string[kFirstChunk << k];
    // Release: the chunk's constructed strings before its pointer. Pairs
    // with the acquire load in Text().
    chunks_[k].store(chunk, std::memory_order_release);
  }
  chunk[offset].assign(text);
  // Release: publishes the text written above. Pairs with the acquire load
  // in size().
  size_.store(id + 1, std::memory_order_release);
  return id;
}

const std::string& PublishedStrings::Text(uint32_t id) const {
  if (id >= size()) return empty_;
  uint64_t offset = 0;
  const int k = ChunkOf(id, &offset);
  return chunks_[k].load(std::memory_order_acquire)[offset];
}

}  // namespace optrace::daemon
