#include "api/stream_quota.h"

#include <string>
#include <utility>

namespace optrace::daemon {

StreamQuota::Lease::Lease(Lease&& other) noexcept
    : quota_(std::exchange(other.quota_, nullptr)),
      uid_(other.uid_),
      reserved_(std::exchange(other.reserved_, 0)),
      stream_(std::exchange(other.stream_, false)),
      threaded_(std::exchange(other.threaded_, false)),
      waiting_(std::exchange(other.waiting_, false)) {}

StreamQuota::Lease& StreamQuota::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    Reset();
    quota_ = std::exchange(other.quota_, nullptr);
    uid_ = other.uid_;
    reserved_ = std::exchange(other.reserved_, 0);
    stream_ = std::exchange(other.stream_, false);
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
  Usage& u = it->second;
  u.bytes -= reserved_;
  if (waiting_) --u.waiting;
  if (stream_) --u.streams;
  if (threaded_) {
    --u.threads;
    --quota_->threaded_;
  }
  if (u.streams == 0 && u.threads == 0) quota_->by_uid_.erase(it);
  quota_ = nullptr;
  reserved_ = 0;
  stream_ = false;
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
  return OpenLocked(uid, what, lease);
}

grpc::Status StreamQuota::OpenThreaded(uint32_t uid, std::string_view what, Lease* lease) {
  std::lock_guard<std::mutex> lock(mu_);
  if (grpc::Status st = CheckThreadLocked(uid, what); !st.ok()) return st;
  if (grpc::Status st = OpenLocked(uid, what, lease); !st.ok()) return st;
  TakeThreadLocked(uid, lease);
  return grpc::Status::OK;
}

bool StreamQuota::TryTakeThread(uint32_t uid, Lease* lease) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!CheckThreadLocked(uid, "a thread").ok()) return false;
  TakeThreadLocked(uid, lease);
  return true;
}

grpc::Status StreamQuota::CheckThreadLocked(uint32_t uid, std::string_view what) const {
  const auto it = by_uid_.find(uid);
  const uint32_t threads = it == by_uid_.end() ? 0 : it->second.threads;
  if (threads >= limits_.max_threaded_streams_per_uid) {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED,
            std::string(what) + " refused: uid " + std::to_string(uid) + " has " +
                std::to_string(threads) +
                " QueryOps and Export streams being served, the cap "
                "max_threaded_streams_per_uid is " +
                std::to_string(limits_.max_threaded_streams_per_uid) +
                " (optraced.toml); try again when one ends"};
  }
  if (threaded_ >= limits_.max_threaded_streams) {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED,
            std::string(what) + " refused: " + std::to_string(threaded_) +
                " QueryOps and Export streams are being served, the daemon's cap "
                "max_threaded_streams is " +
                std::to_string(limits_.max_threaded_streams) + "; try again when one ends"};
  }
  return grpc::Status::OK;
}

void StreamQuota::TakeThreadLocked(uint32_t uid, Lease* lease) {
  ++by_uid_[uid].threads;
  ++threaded_;
  lease->quota_ = this;
  lease->uid_ = uid;
  lease->threaded_ = true;
}

grpc::Status StreamQuota::OpenLocked(uint32_t uid, std::string_view what, Lease* lease) {
  Usage& u = by_uid_[uid];
  grpc::Status refused = grpc::Status::OK;
  if (u.streams >= limits_.max_streams_per_uid) {
    refused = {grpc::StatusCode::RESOURCE_EXHAUSTED,
               std::string(what) + " refused: uid " + std::to_string(uid) + " has " +
                   std::to_string(u.streams) + " streams open, the cap max_streams_per_uid is " +
                   std::to_string(limits_.max_streams_per_uid) + " (optraced.toml)"};
  } else if (u.waiting > 0) {
    refused = {grpc::StatusCode::RESOURCE_EXHAUSTED,
               std::string(what) + " refused: uid " + std::to_string(uid) + " has " +
                   std::to_string(u.waiting) + " streams waiting for its clients to read the " +
                   std::to_string(u.bytes) +
                   " bytes its streams hold, the cap max_bytes_in_flight_per_uid is " +
                   std::to_string(limits_.max_bytes_in_flight_per_uid) + " (optraced.toml)"};
  }
  if (!refused.ok()) {
    if (u.streams == 0 && u.threads == 0) by_uid_.erase(uid);
    return refused;
  }
  ++u.streams;
  lease->quota_ = this;
  lease->uid_ = uid;
  lease->stream_ = true;
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
