#include "optrace/reader/listing_table_reader.h"

#include <algorithm>
#include <string_view>

#include "optrace/reader/shm_fault_guard.h"
#include "optrace/reader/text_sanitizer.h"

namespace optrace::reader {
namespace {

constexpr size_t kTabStop = 8;

// One line of raw listing bytes (no '\n') as printable text.
std::string PrintableLine(std::string_view raw) {
  if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
  std::string expanded;
  expanded.reserve(raw.size());
  for (const char c : raw) {
    if (c == '\t') {
      expanded.append(kTabStop - expanded.size() % kTabStop, ' ');
    } else {
      expanded.push_back(c);
    }
  }
  return SanitizeText(expanded);
}

std::string PrintableListing(std::string_view raw) {
  std::string text;
  text.reserve(raw.size());
  size_t start = 0;
  while (start <= raw.size()) {
    const size_t end = std::min(raw.find('\n', start), raw.size());
    if (start > 0) text.push_back('\n');
    text += PrintableLine(raw.substr(start, end - start));
    start = end + 1;
  }
  return text;
}

}  // namespace

std::vector<PublishedListing> ListingTableReader::ReadNew(uint32_t listing_count,
                                                          uint32_t string_count,
                                                          ReaderStats* stats) {
  std::vector<PublishedListing> listings;
  const SegmentGeometry& g = segment_.geometry();
  const auto* entries =
      reinterpret_cast<const abi::ListingEntry*>(segment_.base() + g.listing_entries_offset);
  for (; next_ < listing_count && next_ < g.listing_slots; ++next_) {
    abi::ListingEntry entry{};
    if (!GuardedCopy(segment_.base(), segment_.bytes(), &entry, entries + next_, sizeof entry)) {
      ++stats->shm_faults;
      break;  // read again on the next pass
    }
    uint64_t end = 0;
    if (entry.file_id < abi::kFirstUserString || entry.file_id >= string_count ||
        entry.first_line == 0 ||
        __builtin_add_overflow(uint64_t{entry.offset}, uint64_t{entry.length}, &end) ||
        end > g.listing_blob_bytes) {
      ++stats->bad_listing_entries;
      continue;
    }
    std::string raw(entry.length, '\0');
    if (!GuardedCopy(segment_.base(), segment_.bytes(), raw.data(),
                     segment_.base() + g.listing_blob_offset + entry.offset, entry.length)) {
      ++stats->shm_faults;
      break;
    }
    listings.push_back({entry.file_id, entry.first_line,
                        (entry.flags & abi::kListingRegistered) != 0, PrintableListing(raw)});
  }
  return listings;
}

}  // namespace optrace::reader
