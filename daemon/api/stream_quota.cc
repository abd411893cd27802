#include "api/stream_quota.h"

#include <string>
#include <utility>

namespace optrace::daemon {

StreamQuota::Lease::Lease(Lease&& other) noexcept
    : quota_(std::exchange(other.quota_, nullptr)),
      uid_(other.uid_),
      reserved_(std::exchange(other.reserved_, 0)),
      threaded_(std::exchange(other.threaded_, false)),
      waiting_(std::exchange(other.waiting_, false)) {}

StreamQuota::Lease& StreamQuota::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    Reset();
    quota_ = std::exchange(other.quota_, nullptr);
    uid_ = other.uid_;
    reserved_ = std::exchange(other.reserved_, 0);
    threaded_ = std::exchange(other.threaded_, false);
    waiting_ = std::exchange(other.waiting_, false);
  }
  return *this;
}

StreamQuota::Lease::~Lease() { Reset(); }

void StreamQuota::Lease::Reset() {
  if (quota_ == nullptr) return;
  std::lock_guard<std::mutex> lock(quota_->mu_);
  auto it = quota_->by_uid_.find(uid_);
  it->second.bytes -= reserved_;
  if (waiting_) --it->second.waiting;
  if (--it->second.streams == 0) quota_->by_uid_.erase(it);
  if (threaded_) --quota_->threaded_;
  quota_ = nullptr;
  reserved_ = 0;
  threaded_ = false;
  waiting_ = false;
}

bool StreamQuota::Lease::ReserveBytes(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(quota_->mu_);
  Usage& u = quota_->by_uid_[uid_];
  if (u.bytes > 0 && u.bytes + bytes > quota_->limits_.max_bytes_in_flight_per_uid) {
    if (!std::exchange(waiting_, true)) ++u.waiting;
    return false;
  }
  if (std::exchange(waiting_, false)) --u.waiting;
  u.bytes += bytes;
  reserved_ += bytes;
  return true;
}

void StreamQuota::Lease::ReleaseBytes(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(quota_->mu_);
  quota_->by_uid_[uid_].bytes -= bytes;
  reserved_ -= bytes;
}

grpc::Status StreamQuota::Open(uint32_t uid, std::string_view what, Lease* lease) {
  std::lock_guard<std::mutex> lock(mu_);
  return OpenLocked(uid, what, false, lease);
}

grpc::Status StreamQuota::OpenThreaded(uint32_t uid, std::string_view what, Lease* lease) {
  std::lock_guard<std::mutex> lock(mu_);
  if (threaded_ >= limits_.max_threaded_streams) {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED,
            std::string(what) + " refused: " + std::to_string(threaded_) +
                " QueryOps and Export streams are being served, the daemon's cap "
                "max_threaded_streams is " +
                std::to_string(limits_.max_threaded_streams) + "; try again when one ends"};
  }
  return OpenLocked(uid, what, true, lease);
}

grpc::Status StreamQuota::OpenLocked(uint32_t uid, std::string_view what, bool threaded,
                                     Lease* lease) {
  Usage& u = by_uid_[uid];
  if (u.streams >= limits_.max_streams_per_uid) {
    const uint32_t open = u.streams;
    return {grpc::StatusCode::RESOURCE_EXHAUSTED,
            std::string(what) + " refused: uid " + std::to_string(uid) + " has " +
                std::to_string(open) + " streams open, the cap max_streams_per_uid is " +
                std::to_string(limits_.max_streams_per_uid) + " (optraced.toml)"};
  }
  if (u.waiting > 0) {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED,
            std::string(what) + " refused: uid " + std::to_string(uid) + " has " +
                std::to_string(u.waiting) + " streams waiting for its clients to read the " +
                std::to_string(u.bytes) +
                " bytes its streams hold, the cap max_bytes_in_flight_per_uid is " +
                std::to_string(limits_.max_bytes_in_flight_per_uid) + " (optraced.toml)"};
  }
  ++u.streams;
  if (threaded) ++threaded_;
  lease->quota_ = this;
  lease->uid_ = uid;
  lease->threaded_ = threaded;
  return grpc::Status::OK;
}

uint64_t StreamQuota::streams() const {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t n = 0;
  for (const auto& [uid, usage] : by_uid_) n += usage.streams;
  return n;
}

uint64_t StreamQuota::bytes_in_flight() const {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t n = 0;
  for (const auto& [uid, usage] : by_uid_) n += usage.bytes;
  return n;
}

}  // namespace optrace::daemon
