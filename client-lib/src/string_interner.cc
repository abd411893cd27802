#include "string_interner.h"

#include <cstring>

namespace optrace::client {

StringInterner::StringInterner(uint32_t max_strings, uint32_t max_blob_bytes)
    : max_strings_(max_strings), max_blob_bytes_(max_blob_bytes) {
  strings_.emplace_back();                         // id 0: none
  strings_.emplace_back("<string table full>");    // id 1
  blob_used_ = strings_[1].size();
}

uint32_t StringInterner::Intern(std::string_view text) {
  if (text.empty()) return abi::kStringNone;
  if (text.size() > abi::kMaxStringBytes) {
    // Cut at a UTF-8 character boundary so the stored prefix stays valid.
    size_t cut = abi::kMaxStringBytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text = text.substr(0, cut);
  }
  std::lock_guard<std::mutex> lock(mu_);
  const std::string key(text);
  if (auto it = ids_.find(key); it != ids_.end()) return it->second;
  if (strings_.size() >= max_strings_ || blob_used_ + text.size() > max_blob_bytes_) {
    if (segment_ != nullptr) {
      segment_->header().strings_dropped.fetch_add(1, std::memory_order_relaxed);
    }
    return abi::kStringTableFull;
  }
  const auto id = static_cast<uint32_t>(strings_.size());
  strings_.push_back(key);
  ids_.emplace(key, id);
  blob_used_ += text.size();
  if (segment_ != nullptr) PublishLocked(id);
  return id;
}

std::string StringInterner::Lookup(uint32_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  return id < strings_.size() ? strings_[id] : std::string();
}

void StringInterner::AttachSegment(ProducerSegment* segment) {
  std::lock_guard<std::mutex> lock(mu_);
  segment_ = segment;
  segment_blob_used_ = 0;
  if (segment_ == nullptr) return;
  for (uint32_t id = 0; id < strings_.size(); ++id) PublishLocked(id);
}

void StringInterner::PublishLocked(uint32_t id) {
  abi::SegmentHeader& h = segment_->header();
  const std::string& s = strings_[id];
  // The segment's table has the same limits as ours (both come from the
  // same options), so this only fails if the options disagree.
  if (id >= h.string_slots || segment_blob_used_ + s.size() > h.string_blob_bytes) {
    h.strings_dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  std::memcpy(segment_->string_blob() + segment_blob_used_, s.data(), s.size());
  segment_->string_entries()[id] = abi::StringEntry{segment_blob_used_,
                                                    static_cast<uint32_t>(s.size())};
  segment_blob_used_ += static_cast<uint32_t>(s.size());
  // Release: publishes the bytes and entry above. Pairs with the consumer's
  // acquire load of string_count before it reads entry `id`.
  h.string_count.store(id + 1, std::memory_order_release);
}

void StringInterner::LockForFork() { mu_.lock(); }
void StringInterner::UnlockAfterFork() { mu_.unlock(); }

}  // namespace optrace::client
