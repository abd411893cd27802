// The process's source listings: the lines around each op site it names,
// read with the process's own rights and shipped in its segment's listing
// area (docs/abi.md "Listings").
#ifndef OPTRACE_CLIENT_LISTING_CAPTURE_H_
#define OPTRACE_CLIENT_LISTING_CAPTURE_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "producer_options.h"
#include "producer_segment.h"
#include "string_interner.h"

namespace optrace::client {

// Files are read by one background thread, started when locations are
// queued and ended once it has read them all, never by the thread that
// names the location: a slow or hung file system
// delays a listing, never an op. Listings are kept in memory (at most the
// area's size) so that a fork child's new segment gets them too.
// Thread-safe. Lock order: the runtime's mutex, then this one; never the
// string interner's while this one is held.
class ListingCapture {
 public:
  // `strings` names the files; it must outlive the capture.
  ListingCapture(const ProducerOptions& options, StringInterner* strings);

  // Source location `location_id` ("file:line") was interned: queues the
  // lines around `line` of `file` for the reader thread, once per
  // location. No-op when listings are off.
  void OnLocation(uint32_t location_id, std::string_view file, uint32_t line);

  // A runtime's own listing (an IR dump, say) under `name`; op sites name
  // its lines as "name:line". Kept at once. Returns 0, -EINVAL (listings
  // off, an empty name) or -ENOSPC (the area is full: counted as dropped).
  int Register(std::string_view name, std::string_view text);

  // Publishes every listing kept so far into `segment` and later ones as
  // they come; nullptr detaches (a fork child, before its own segment).
  // REQUIRES: `segment` outlives its use; the string interner was attached
  // to it first (a listing's file name is published before the listing).
  void AttachSegment(ProducerSegment* segment);

  // At exit: waits until the reader thread has shipped what is queued (and
  // joins it), for
  // at most `timeout` (a slow file system must not hold up an exit for
  // long). What is still queued then is lost, not counted: it never was a
  // listing.
  void FlushForExit(std::chrono::milliseconds timeout);

  // fork() support: the prepare handler locks (after waiting up to 20 ms
  // for a busy reader, and joining a finished one); the parent's handler
  // unlocks; the child's unlocks and forgets the reader thread, which the
  // child does not have (what is still queued is read by a new one, started
  // by the next location or the child's AttachSegment).
  void LockForFork();
  void UnlockAfterFork();
  void UnlockInForkChild();

 private:
  struct Request {
    std::string path;  // `file` made absolute at the working directory, or ""
    std::string file;  // as the location spells it
    uint32_t line;
  };
  struct Listing {
    uint32_t file_id;
    uint32_t first_line;
    uint32_t flags;
    std::string text;
  };

  // REQUIRES: mu_ held. Starts the reader thread when something is queued
  // and none runs (joining one that finished).
  void StartReaderLocked();
  // REQUIRES: mu_ held. Nothing is queued or being read.
  bool IdleLocked() const;
  // REQUIRES: mu_ held. Joins a reader that finished (and forgets it).
  void JoinFinishedLocked();
  void ReaderLoop();
  // The reader thread only: fills `listing` (but its file id) with the
  // lines around the request's line; false when the file cannot be read or
  // has no such line.
  bool Read(const Request& request, Listing* listing);
  // The reader thread only: the bytes of the request's file, from its
  // path or, for a relative name, from the folders of the executable.
  bool ReadNamedFile(const Request& request, std::string* bytes);
  // REQUIRES: mu_ held. Whether lines around `line` of `file` are kept
  // already (a whole file, or an excerpt that covers it well).
  bool CoveredLocked(const std::string& file, uint32_t line) const;
  // REQUIRES: mu_ held. Keeps `listing` and publishes it when a segment is
  // attached. False when the area has no room left (counted as dropped).
  bool KeepLocked(Listing listing, const std::string& file, uint32_t lines);
  // REQUIRES: mu_ held, segment_ set. Writes `listing` into the area.
  void PublishLocked(const Listing& listing);
  // REQUIRES: mu_ held. Adds one to the segment's `counter`, or to
  // `*pending` before there is a segment.
  void CountLocked(std::atomic<uint64_t> abi::SegmentHeader::*counter, uint64_t* pending);

  const bool enabled_;
  const uint32_t context_;
  const uint32_t max_listings_;
  const uint32_t max_bytes_;
  StringInterner* const strings_;

  std::mutex mu_;
  std::condition_variable idle_;       // the reader finished the queue
  std::set<uint32_t> seen_locations_;  // GUARDED_BY(mu_)
  std::deque<Request> queue_;          // GUARDED_BY(mu_)
  // The reader thread, while one exists; it ends when the queue is empty
  // (then reader_done_), and is joined before the next one starts.
  std::unique_ptr<std::thread> reader_;  // GUARDED_BY(mu_)
  bool reader_done_ = false;             // GUARDED_BY(mu_)
  std::vector<Listing> kept_;            // GUARDED_BY(mu_)
  uint64_t kept_bytes_ = 0;              // GUARDED_BY(mu_)
  // Per file: the line ranges kept, [first, last].
  std::map<std::string, std::vector<std::pair<uint32_t, uint32_t>>> ranges_;  // GUARDED_BY(mu_)
  ProducerSegment* segment_ = nullptr;                                        // GUARDED_BY(mu_)
  uint32_t published_ = 0;          // GUARDED_BY(mu_): entries in segment_
  uint32_t segment_blob_used_ = 0;  // GUARDED_BY(mu_)
  // The reader thread's last file (locations come in runs of one file).
  std::string cached_path_;
  std::string cached_bytes_;
  std::vector<size_t> cached_starts_;            // where each line of cached_bytes_ starts
  std::vector<std::string> executable_folders_;  // nearest first; filled on first use
  // Counted before a segment existed: added to it at attach.
  uint64_t pending_refused_ = 0;  // GUARDED_BY(mu_)
  uint64_t pending_dropped_ = 0;  // GUARDED_BY(mu_)
};

}  // namespace optrace::client

#endif  // OPTRACE_CLIENT_LISTING_CAPTURE_H_
