#include "instrument/name_table.h"

#include <atomic>

#include "instrument/thread_block.h"

namespace optrace::instrument {
namespace {

// One slot of a thread's cache: a text the table holds, and its id.
struct CachedName {
  uint64_t table;           // NameTable::serial_ of the owner (0 = empty slot)
  const std::string* text;  // the owner's copy of the text
  size_t hash;
  uint32_t id;
};
constexpr size_t kCacheSlots =
    512;  // a power of two; PyTorch programs use hundreds of names and tags
struct NameCache {
  CachedName slots[kCacheSlots];
};
// The calling thread's cache slot for `hash`; nullptr without a cache.
CachedName* CacheSlot(size_t hash) {
  NameCache* const cache = ThreadBlock<NameCache>::Get();
  return cache != nullptr ? &cache->slots[hash & (kCacheSlots - 1)] : nullptr;
}

// Serials of tables, never reused (a table's address may be: tests make
// and destroy tables, and a slot must never match a dead table's entry).
std::atomic<uint64_t> g_next_serial{1};

}  // namespace

NameTable::NameTable(size_t max_names, LossCounter& over_cap)
    : serial_(g_next_serial.fetch_add(1, std::memory_order_relaxed)),
      max_names_(max_names),
      over_cap_(over_cap),
      over_cap_id_(Intern("<too many names>")) {}

uint32_t NameTable::Id(std::string_view text) {
  const size_t hash = Hash{}(text);
  const CachedName* const slot = CacheSlot(hash);
  if (slot != nullptr && slot->table == serial_ && slot->hash == hash && *slot->text == text) {
    return slot->id;
  }
  return IdSlow(text, hash);
}

uint32_t NameTable::IdSlow(std::string_view text, size_t hash) {
  std::unique_lock<std::mutex> lock(mu_);
  auto it = ids_.find(text);
  if (it == ids_.end()) {
    if (ids_.size() >= max_names_) {
      lock.unlock();
      over_cap_.Add();
      return over_cap_id_;
    }
    try {
      it = ids_.emplace(std::string(text), Intern(text)).first;
    } catch (...) {  // allocation failure: never let it reach the application
      return abi::kStringTableFull;
    }
  }
  if (CachedName* const slot = CacheSlot(hash)) *slot = {serial_, &it->first, hash, it->second};
  return it->second;
}

}  // namespace optrace::instrument
