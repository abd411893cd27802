// Reads a segment's interned strings once each and caches them.
#ifndef OPTRACE_READER_STRING_TABLE_READER_H_
#define OPTRACE_READER_STRING_TABLE_READER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "optrace/reader/attached_segment.h"
#include "optrace/reader/reader_stats.h"

namespace optrace::reader {

// Resolves string ids of one segment to sanitized text. Each string is read
// from shared memory once (rule 16: bounds checked, overflow-checked), then
// served from the cache for the segment's life, never re-read.
// REQUIRES: one thread; `segment` outlives the reader.
class StringTableReader {
 public:
  explicit StringTableReader(const AttachedSegment& segment);

  // The text of `id`: "" for 0, "<string table full>" for 1, a placeholder
  // ("<invalid string id>", "<bad string N>") for ids the drainer replaced or
  // entries that break a rule (counted in `stats`).
  // REQUIRES: id < the string_count seen by the drainer, or kInvalidStringId.
  const std::string& Get(uint32_t id, ReaderStats* stats);

 private:
  const AttachedSegment& segment_;
  std::vector<std::optional<std::string>> cache_;
  const std::string empty_;
  const std::string invalid_ = "<invalid string id>";
};

}  // namespace optrace::reader

#endif  // OPTRACE_READER_STRING_TABLE_READER_H_
