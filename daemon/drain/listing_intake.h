// A session's source listings on their way from its segment to the store:
// read each drain pass, de-duplicated, and held to the session's caps.
#ifndef OPTRACE_DAEMON_DRAIN_LISTING_INTAKE_H_
#define OPTRACE_DAEMON_DRAIN_LISTING_INTAKE_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "model/source_listing.h"
#include "optrace/reader/attached_segment.h"
#include "optrace/reader/listing_table_reader.h"
#include "optrace/reader/reader_stats.h"
#include "optrace/reader/string_table_reader.h"

namespace optrace::daemon {

// What the daemon takes of each session's listings (optraced --listings,
// --listing-max-bytes, --listing-max-files).
struct ListingLimits {
  bool enabled = true;              // false: listing areas are never read
  uint64_t max_bytes = 4ull << 20;  // text bytes per session
  uint32_t max_files = 1024;        // distinct files (or registered names) per session
};

// Thread rules: the drain thread only; `segment` outlives the intake.
class ListingIntake {
 public:
  ListingIntake(const reader::AttachedSegment& segment, ListingLimits limits);

  // Reads the listings published below `listing_count`, naming files among
  // the first `string_count` strings (one ReadProducerFields pass), and
  // keeps those that are new and fit the caps for the next cut.
  void Read(uint32_t listing_count, uint32_t string_count, reader::StringTableReader& strings,
            reader::ReaderStats* stats);

  bool HasPending() const { return !pending_.empty(); }
  // Moves the listings waiting for the store to `out`, as session `id`'s.
  void MoveInto(SessionId id, std::vector<SourceListing>* out);
  // Takes back a listing of a batch the store refused (shed): it goes into
  // the next cut. Listings are not events: nothing is counted as lost.
  void Return(SourceListing listing) { pending_.push_back(std::move(listing)); }

  // The session's counters: shipped and capped here, refused and dropped
  // from the producer's counters in `stats`.
  SessionListingCounts Counts(const reader::ReaderStats& stats) const;

 private:
  const ListingLimits limits_;
  reader::ListingTableReader reader_;
  std::set<std::string> files_;  // distinct files shipped
  std::set<uint64_t> contents_;  // hashes of (file, first line, text) shipped
  uint64_t bytes_ = 0;           // text shipped
  uint64_t shipped_ = 0;
  uint64_t capped_ = 0;
  std::vector<SourceListing> pending_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_DRAIN_LISTING_INTAKE_H_
