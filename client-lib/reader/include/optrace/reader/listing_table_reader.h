// Reads the source listings a segment's producer publishes (ABI minor 5).
#ifndef OPTRACE_READER_LISTING_TABLE_READER_H_
#define OPTRACE_READER_LISTING_TABLE_READER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "optrace/reader/attached_segment.h"
#include "optrace/reader/reader_stats.h"

namespace optrace::reader {

// One listing as the producer published it, copied out of shared memory
// and made printable: `text` is lines of sanitized UTF-8 separated by '\n'
// (a '\r' before a newline dropped, tabs expanded to 8-column stops).
struct PublishedListing {
  uint32_t file_id = 0;  // a string id below the string_count it was read with
  uint32_t first_line = 1;
  bool registered = false;
  std::string text;
};

// Reads each published listing once, in order (docs/abi.md "Listings"):
// an entry outside the blob, naming an unpublished string or line 0 is
// skipped and counted in `bad_listing_entries`.
// REQUIRES: one thread; `segment` outlives the reader.
class ListingTableReader {
 public:
  explicit ListingTableReader(const AttachedSegment& segment) : segment_(segment) {}

  // The listings published since the last call. `listing_count` and
  // `string_count` are the producer fields of one ReadProducerFields pass
  // (acquire loads, clamped to the geometry).
  std::vector<PublishedListing> ReadNew(uint32_t listing_count, uint32_t string_count,
                                        ReaderStats* stats);

 private:
  const AttachedSegment& segment_;
  uint32_t next_ = 0;  // the first entry not read yet
};

}  // namespace optrace::reader

#endif  // OPTRACE_READER_LISTING_TABLE_READER_H_
