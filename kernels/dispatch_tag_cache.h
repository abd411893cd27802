// Interned dispatch tags for shapes known only at run time: each distinct
// shape is formatted and interned once, and later lookups return its id.
#ifndef OPTRACE_KERNELS_DISPATCH_TAG_CACHE_H_
#define OPTRACE_KERNELS_DISPATCH_TAG_CACHE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "kernels/dispatch_tag.h"

namespace optrace::kernels {

// Maps op shapes to interned tag ids. A runtime whose shapes vary without
// bound (a batch size per request, a sequence length) must not fill the
// process's string table, so each op kind gets at most `max_tags_per_kind`
// distinct tags; shapes beyond that share the kind's generic tag
// ("matmul_dyn_f32") and are counted in generic_fallbacks().
// Thread-safe: lookups take a process-local lock (a map lookup; the
// interning itself happens once per shape).
class DispatchTagCache {
 public:
  // Interns a string and returns its id; optrace::Intern in production.
  using InternFn = uint32_t (*)(std::string_view text) noexcept;

  static constexpr size_t kDefaultMaxTagsPerKind = 256;

  // `intern` must be callable from any thread for the cache's lifetime.
  explicit DispatchTagCache(InternFn intern, size_t max_tags_per_kind = kDefaultMaxTagsPerKind);
  DispatchTagCache(const DispatchTagCache&) = delete;
  DispatchTagCache& operator=(const DispatchTagCache&) = delete;

  // The tag id of `shape`: DispatchTag(shape) interned on first use, or,
  // once the kind already holds max_tags_per_kind distinct tags,
  // GenericDispatchTag(shape) interned on first use.
  uint32_t TagId(const OpShape& shape);

  // Lookups answered with a generic tag because their kind was at its cap.
  uint64_t generic_fallbacks() const;

 private:
  struct ShapeHash {
    size_t operator()(const OpShape& shape) const;
  };
  using IdMap = std::unordered_map<OpShape, uint32_t, ShapeHash>;

  // Interns `text`, records its id under `key` in `ids` and returns it.
  // REQUIRES: mu_ held.
  uint32_t InternAndRemember(IdMap& ids, const OpShape& key, const std::string& text);

  const InternFn intern_;
  const size_t max_tags_per_kind_;
  mutable std::mutex mu_;
  IdMap shape_ids_;                                   // GUARDED_BY(mu_)
  IdMap generic_ids_;                                 // GUARDED_BY(mu_); keys have zero dims
  std::array<size_t, kOpKindCount> tags_per_kind_{};  // GUARDED_BY(mu_)
  uint64_t generic_fallbacks_ = 0;                    // GUARDED_BY(mu_)
};

}  // namespace optrace::kernels

#endif  // OPTRACE_KERNELS_DISPATCH_TAG_CACHE_H_
