#include "drain/listing_intake.h"

#include <functional>
#include <string_view>

#include "model/hash_mix.h"

namespace optrace::daemon {

ListingIntake::ListingIntake(const reader::AttachedSegment& segment, ListingLimits limits)
    : limits_(limits), reader_(segment) {}

void ListingIntake::Read(uint32_t listing_count, uint32_t string_count,
                         reader::StringTableReader& strings, reader::ReaderStats* stats) {
  if (!limits_.enabled) return;
  for (reader::PublishedListing& published : reader_.ReadNew(listing_count, string_count, stats)) {
    SourceListing listing;
    listing.file = strings.Get(published.file_id, stats);
    listing.first_line = published.first_line;
    listing.registered = published.registered;
    listing.text = std::move(published.text);
    const std::hash<std::string_view> hash;
    const uint64_t content =
        MixBits(MixBits(hash(listing.file) ^ listing.first_line) ^ hash(listing.text));
    if (contents_.count(content) != 0) continue;  // the same lines again
    const bool new_file = files_.count(listing.file) == 0;
    if ((new_file && files_.size() >= limits_.max_files) ||
        bytes_ + listing.text.size() > limits_.max_bytes) {
      ++capped_;
      continue;
    }
    contents_.insert(content);
    if (new_file) files_.insert(listing.file);
    bytes_ += listing.text.size();
    ++shipped_;
    pending_.push_back(std::move(listing));
  }
}

void ListingIntake::MoveInto(SessionId id, std::vector<SourceListing>* out) {
  for (SourceListing& listing : pending_) {
    listing.session = id;
    out->push_back(std::move(listing));
  }
  pending_.clear();
}

SessionListingCounts ListingIntake::Counts(const reader::ReaderStats& stats) const {
  return {shipped_, stats.listings_refused, stats.listings_dropped, capped_};
}

}  // namespace optrace::daemon
