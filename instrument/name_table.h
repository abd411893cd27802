// Interned ids of the dynamic strings an instrumented library hands us
// (NVTX messages and categories, PyTorch op names and tags), with a cap on
// how many distinct ones a process may add.
#ifndef OPTRACE_INSTRUMENT_NAME_TABLE_H_
#define OPTRACE_INSTRUMENT_NAME_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "instrument/loss_counter.h"
#include "optrace/abi.h"

namespace optrace::instrument {

// Maps text to its optrace string id (optrace::Intern). The first
// `max_names` distinct texts get ids of their own; every later new text
// gets the id of "<too many names>" and counts in `over_cap`, so that an
// application that puts counters or addresses in its messages cannot fill
// the string table. A small per-thread cache answers repeated texts without
// the lock.
// Thread-safe. `over_cap` must outlive the table.
class NameTable {
 public:
  NameTable(size_t max_names, LossCounter& over_cap);
  NameTable(const NameTable&) = delete;
  NameTable& operator=(const NameTable&) = delete;

  // The id of `text`. REQUIRES: `text` is non-empty and already bounded
  // by the caller (NVTX's are bounded by nvtx/utf8_text.h).
  uint32_t Id(std::string_view text);

  // True for the ids Id gives in place of a text's own: "<too many names>"
  // (a text beyond the cap, counted in `over_cap` at each Id) and "<string
  // table full>". A caller that remembers ids should ask Id again for
  // these, so that every use beyond the cap is counted.
  bool IsPlaceholder(uint32_t id) const {
    return id == over_cap_id_ || id == abi::kStringTableFull;
  }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
  };

  // Takes the lock; `hash` is Hash{}(text). Allocation failure gives the
  // id of "<string table full>".
  uint32_t IdSlow(std::string_view text, size_t hash);

  const uint64_t serial_;  // identifies this table in the per-thread caches
  const size_t max_names_;
  LossCounter& over_cap_;
  const uint32_t over_cap_id_;
  std::mutex mu_;
  // Node-based: keys keep their address for the per-thread caches.
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> ids_;  // GUARDED_BY(mu_)
};

}  // namespace optrace::instrument

#endif  // OPTRACE_INSTRUMENT_NAME_TABLE_H_
