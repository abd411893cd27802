// The out-of-line parts of the C++ API (optrace/optrace.hpp).
#include <string>

#include "optrace/optrace.hpp"
#include "runtime.h"

namespace optrace {

uint32_t Intern(std::string_view text) noexcept {
  try {
    return client::Runtime::Get().strings().Intern(text);
  } catch (...) {  // allocation failure: never let it reach the runtime
    return abi::kStringTableFull;
  }
}

void SetLevel(Level level) noexcept {
  client::Runtime::Get().SetRequestedLevel(static_cast<abi::LevelValue>(level));
}

Level GetLevel() noexcept {
  client::Runtime::Get().EnsureStarted();
  const uint32_t live =
      detail::g_level_word.load(std::memory_order_acquire)->load(std::memory_order_relaxed);
  return static_cast<Level>(live <= abi::kMaxLevel ? live : abi::kMaxLevel);
}

DropCounts GetDropCounts() noexcept {
  client::Runtime& rt = client::Runtime::Get();
  rt.EnsureStarted();
  DropCounts counts;
  counts.no_segment = rt.no_segment_drops();
  if (client::ProducerSegment* seg = rt.segment()) {
    const abi::SegmentHeader& h = seg->header();
    counts.no_ring = h.events_dropped_no_ring.load(std::memory_order_relaxed);
    for (uint32_t i = 0; i < h.ring_count; ++i) {
      counts.ring_full += seg->ring(i).dropped.load(std::memory_order_relaxed);
    }
  }
  return counts;
}

const char* SegmentNameOrEmpty() noexcept {
  client::Runtime& rt = client::Runtime::Get();
  client::ProducerSegment* seg = rt.segment();
  return seg != nullptr ? seg->name().c_str() : "";
}

uint32_t OpSite::InternField(Field field) noexcept {
  uint32_t id = 0;
  std::atomic<uint32_t>* slot = nullptr;
  switch (field) {
    case kName:
      id = Intern(name_ != nullptr ? name_ : "");
      slot = &name_id_;
      break;
    case kTag:
      id = Intern(tag_ != nullptr ? tag_ : "");
      slot = &tag_id_;
      break;
    case kSrcloc:
      try {
        id = client::Runtime::Get().InternLocation(location_.file_name(), location_.line());
      } catch (...) {
        id = abi::kStringTableFull;
      }
      slot = &srcloc_id_;
      break;
  }
  // Relaxed: the id is only a value; the string it names was published
  // with release before Intern returned.
  slot->store(id, std::memory_order_relaxed);
  return id;
}

}  // namespace optrace
