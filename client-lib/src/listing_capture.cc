#include "listing_capture.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <thread>

namespace optrace::client {
namespace {

// A source file longer than this is not read: no op site needs it, and a
// log or data file named by mistake must not be pulled into memory.
constexpr off_t kMaxSourceFileBytes = 16 << 20;
// How long fork() waits, at most, for a reader busy with a file.
constexpr std::chrono::milliseconds kForkWait{20};

// The whole contents of regular file `path`, read with this process's own
// rights, or false.
bool ReadSourceFile(const std::string& path, std::string* bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= kMaxSourceFileBytes;
  bytes->clear();
  char buffer[64 << 10];
  while (ok) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    bytes->append(buffer, static_cast<size_t>(n));
    ok = bytes->size() <= static_cast<size_t>(kMaxSourceFileBytes);
  }
  ::close(fd);
  return ok;
}

// The offsets where each line of `bytes` starts (a last line without a
// newline included).
std::vector<size_t> LineStarts(const std::string& bytes) {
  std::vector<size_t> starts;
  for (size_t at = 0; at < bytes.size();) {
    starts.push_back(at);
    const size_t newline = bytes.find('\n', at);
    if (newline == std::string::npos) break;
    at = newline + 1;
  }
  return starts;
}

// `path` made absolute against the working directory now (it may change
// before the reader thread gets to it); "" when that cannot be done.
// (ReadNamedFile tries other folders for a relative one.)
std::string AbsolutePath(std::string_view path) {
  if (!path.empty() && path.front() == '/') return std::string(path);
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) == nullptr) return "";
  return std::string(cwd) + "/" + std::string(path);
}

}  // namespace

ListingCapture::ListingCapture(const ProducerOptions& options, StringInterner* strings)
    : enabled_(options.listings),
      context_(options.listing_context),
      max_listings_(options.listing_slots),
      max_bytes_(options.listing_blob_bytes),
      strings_(strings) {}

void ListingCapture::OnLocation(uint32_t location_id, std::string_view file, uint32_t line) {
  if (!enabled_ || location_id < abi::kFirstUserString || file.empty() || line == 0) return;
  std::string path = AbsolutePath(file);
  std::lock_guard<std::mutex> lock(mu_);
  if (!seen_locations_.insert(location_id).second) return;
  queue_.push_back({std::move(path), std::string(file), line});
  StartReaderLocked();
}

void ListingCapture::StartReaderLocked() {
  if (queue_.empty() || (reader_ != nullptr && !reader_done_)) return;
  JoinFinishedLocked();
  try {
    reader_ = std::make_unique<std::thread>([this] { ReaderLoop(); });
    reader_done_ = false;
  } catch (const std::system_error&) {
    // No thread now (a process at its thread limit): the next location tries again.
  }
}

int ListingCapture::Register(std::string_view name, std::string_view text) {
  if (!enabled_ || name.empty()) return -EINVAL;
  const uint32_t file_id = strings_->Intern(name);
  std::lock_guard<std::mutex> lock(mu_);
  if (file_id == abi::kStringTableFull) {
    CountLocked(&abi::SegmentHeader::listings_dropped, &pending_dropped_);
    return -ENOSPC;
  }
  const auto lines = static_cast<uint32_t>(std::count(text.begin(), text.end(), '\n') + 1);
  return KeepLocked({file_id, 1, abi::kListingRegistered, std::string(text)}, std::string(name),
                    lines)
             ? 0
             : -ENOSPC;
}

void ListingCapture::ReaderLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!queue_.empty()) {
    const Request request = std::move(queue_.front());
    queue_.pop_front();
    if (CoveredLocked(request.file, request.line)) continue;
    lock.unlock();
    // The file name is interned outside mu_ (lock order) and before the
    // listing is published (a consumer resolves it then).
    Listing listing;
    const bool read = Read(request, &listing);
    if (read) listing.file_id = strings_->Intern(request.file);
    lock.lock();
    if (!read) {
      CountLocked(&abi::SegmentHeader::listings_refused, &pending_refused_);
    } else if (listing.file_id == abi::kStringTableFull) {
      CountLocked(&abi::SegmentHeader::listings_dropped, &pending_dropped_);
    } else if (!CoveredLocked(request.file, request.line)) {
      const auto lines =
          static_cast<uint32_t>(std::count(listing.text.begin(), listing.text.end(), '\n') + 1);
      KeepLocked(std::move(listing), request.file, lines);
    }
  }
  // Nothing left: the thread ends, so that a process that is done naming
  // new locations is single-threaded again as far as optrace goes (a fork
  // then copies no thread of ours).
  reader_done_ = true;
  idle_.notify_all();
}

bool ListingCapture::Read(const Request& request, Listing* listing) {
  if (request.path != cached_path_ || cached_path_.empty()) {
    cached_path_.clear();
    if (!ReadNamedFile(request, &cached_bytes_)) return false;
    cached_path_ = request.path;
    cached_starts_ = LineStarts(cached_bytes_);
  }
  const auto line_count = static_cast<uint32_t>(cached_starts_.size());
  if (request.line > line_count) return false;  // not the file the location was made from
  // A small file is kept whole; of a larger one, `context_` lines on each
  // side of the op's line.
  uint32_t first = 1, last = line_count;
  if (line_count > 4 * context_ + 2) {
    first = request.line > context_ ? request.line - context_ : 1;
    last = std::min(line_count, request.line + context_);
  }
  const size_t begin = cached_starts_[first - 1];
  size_t end = last < line_count ? cached_starts_[last] - 1 : cached_bytes_.size();
  if (end > begin && cached_bytes_[end - 1] == '\n') --end;  // the file's last newline
  listing->first_line = first;
  listing->flags = 0;
  listing->text = cached_bytes_.substr(begin, end - begin);
  return true;
}

bool ListingCapture::ReadNamedFile(const Request& request, std::string* bytes) {
  if (!request.path.empty() && ReadSourceFile(request.path, bytes)) return true;
  if (request.file.front() == '/') return false;
  // A relative name (a build that compiles with relative paths, as ccache's
  // base_dir does) was relative to the build's folder, not to where the
  // program runs: try it from each folder the executable lies in, nearest
  // first (build/tests/helpers/x, then build/tests, then build, ...).
  if (executable_folders_.empty()) {
    char exe[4096];
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    std::string folder = n > 0 ? std::string(exe, static_cast<size_t>(n)) : "";
    for (size_t slash = folder.rfind('/'); slash != std::string::npos && slash > 0;
         slash = folder.rfind('/')) {
      folder.resize(slash);
      executable_folders_.push_back(folder);
    }
    executable_folders_.push_back("");  // the root: "/" + file
  }
  for (const std::string& folder : executable_folders_) {
    if (ReadSourceFile(folder + "/" + request.file, bytes)) return true;
  }
  return false;
}

bool ListingCapture::CoveredLocked(const std::string& file, uint32_t line) const {
  const auto it = ranges_.find(file);
  if (it == ranges_.end()) return false;
  // Covered: inside a kept range with half the context on either side
  // (or up to the range's end where that is the file's start).
  const uint32_t margin = context_ / 2;
  for (const auto& [first, last] : it->second) {
    if (line >= first && line <= last && (line - first >= margin || first == 1) &&
        last - line >= margin) {
      return true;
    }
  }
  return false;
}

bool ListingCapture::KeepLocked(Listing listing, const std::string& file, uint32_t lines) {
  if (kept_.size() >= max_listings_ || kept_bytes_ + listing.text.size() > max_bytes_) {
    CountLocked(&abi::SegmentHeader::listings_dropped, &pending_dropped_);
    return false;
  }
  ranges_[file].emplace_back(listing.first_line, listing.first_line + lines - 1);
  kept_bytes_ += listing.text.size();
  kept_.push_back(std::move(listing));
  if (segment_ != nullptr) PublishLocked(kept_.back());
  return true;
}

void ListingCapture::PublishLocked(const Listing& listing) {
  abi::SegmentHeader& h = segment_->header();
  // The area has the same limits as kept_ (both come from the options), so
  // this only fails if the options disagree.
  if (published_ >= h.listing_slots ||
      uint64_t{segment_blob_used_} + listing.text.size() > h.listing_blob_bytes) {
    h.listings_dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  std::memcpy(segment_->listing_blob() + segment_blob_used_, listing.text.data(),
              listing.text.size());
  segment_->listing_entries()[published_] =
      abi::ListingEntry{listing.file_id,    listing.first_line,
                        segment_blob_used_, static_cast<uint32_t>(listing.text.size()),
                        listing.flags,      0};
  segment_blob_used_ += static_cast<uint32_t>(listing.text.size());
  // Release: publishes the bytes and entry above. Pairs with the
  // consumer's acquire load of listing_count before it reads the entry.
  h.listing_count.store(++published_, std::memory_order_release);
}

void ListingCapture::CountLocked(std::atomic<uint64_t> abi::SegmentHeader::*counter,
                                 uint64_t* pending) {
  if (segment_ != nullptr) {
    (segment_->header().*counter).fetch_add(1, std::memory_order_relaxed);
  } else {
    ++*pending;
  }
}

void ListingCapture::AttachSegment(ProducerSegment* segment) {
  std::lock_guard<std::mutex> lock(mu_);
  segment_ = segment;
  published_ = 0;
  segment_blob_used_ = 0;
  if (segment_ == nullptr) return;
  abi::SegmentHeader& h = segment_->header();
  h.listings_refused.fetch_add(pending_refused_, std::memory_order_relaxed);
  h.listings_dropped.fetch_add(pending_dropped_, std::memory_order_relaxed);
  pending_refused_ = pending_dropped_ = 0;
  StartReaderLocked();  // a fork child's queue
  if (h.listing_slots == 0) return;
  for (const Listing& listing : kept_) PublishLocked(listing);
}

bool ListingCapture::IdleLocked() const {
  return queue_.empty() && (reader_ == nullptr || reader_done_);
}

void ListingCapture::FlushForExit(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait_for(lock, timeout, [&] { return IdleLocked(); });
  JoinFinishedLocked();
}

void ListingCapture::JoinFinishedLocked() {
  // A finished reader released mu_ for the last time before we took it:
  // joining it cannot wait on us.
  if (reader_ == nullptr || !reader_done_) return;
  reader_->join();
  reader_.reset();
}

void ListingCapture::LockForFork() {
  std::unique_lock<std::mutex> lock(mu_);
  // A reader busy with a file is given a moment to finish, and a finished
  // one is joined: the child then inherits no thread of ours.
  idle_.wait_for(lock, kForkWait, [&] { return IdleLocked(); });
  JoinFinishedLocked();
  lock.release();  // held across fork(); the after-fork handlers unlock
}

void ListingCapture::UnlockAfterFork() { mu_.unlock(); }

void ListingCapture::UnlockInForkChild() {
  // A reader still busy at the fork is the parent's: the child forgets its
  // handle without joining it (the thread does not exist here). A new one
  // is started outside the fork handler: by the next location, or when the
  // child's segment attaches.
  if (reader_ != nullptr) (void)reader_.release();
  reader_done_ = false;
  mu_.unlock();
}

}  // namespace optrace::client
