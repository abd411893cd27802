#include "optrace/reader/string_table_reader.h"

#include "optrace/reader/segment_drainer.h"
#include "optrace/reader/shm_fault_guard.h"
#include "optrace/reader/text_sanitizer.h"

namespace optrace::reader {

StringTableReader::StringTableReader(const AttachedSegment& segment) : segment_(segment) {}

const std::string& StringTableReader::Get(uint32_t id, ReaderStats* stats) {
  if (id == abi::kStringNone) return empty_;
  const SegmentGeometry& g = segment_.geometry();
  if (id == kInvalidStringId || id >= g.string_slots) return invalid_;
  if (cache_.size() <= id) cache_.resize(id + 1);
  std::optional<std::string>& slot = cache_[id];
  if (slot) return *slot;

  const auto* entries =
      reinterpret_cast<const abi::StringEntry*>(segment_.base() + g.string_entries_offset);
  abi::StringEntry entry{};
  if (!GuardedCopy(segment_.base(), segment_.bytes(), &entry, entries + id, sizeof entry)) {
    ++stats->shm_faults;
    return invalid_;  // not cached: a later call may succeed
  }
  uint64_t end = 0;
  if (entry.length > abi::kMaxStringBytes ||
      __builtin_add_overflow(uint64_t{entry.offset}, uint64_t{entry.length}, &end) ||
      end > g.string_blob_bytes) {
    ++stats->bad_string_entries;
    slot = "<bad string " + std::to_string(id) + ">";
    return *slot;
  }
  std::string raw(entry.length, '\0');
  if (!GuardedCopy(segment_.base(), segment_.bytes(), raw.data(),
                   segment_.base() + g.string_blob_offset + entry.offset, entry.length)) {
    ++stats->shm_faults;
    return invalid_;
  }
  slot = SanitizeText(raw);
  return *slot;
}

}  // namespace optrace::reader
