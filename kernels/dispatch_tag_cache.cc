#include "kernels/dispatch_tag_cache.h"

namespace optrace::kernels {

size_t DispatchTagCache::ShapeHash::operator()(const OpShape& shape) const {
  // FNV-1a over the fields that make a shape; shapes are few, so any
  // reasonable mix will do.
  uint64_t h = 1469598103934665603ULL;
  const auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ULL; };
  mix(static_cast<uint64_t>(shape.kind));
  mix(static_cast<uint64_t>(shape.fn));
  mix(static_cast<uint64_t>(shape.type));
  for (uint64_t d : shape.dims) mix(d);
  return static_cast<size_t>(h);
}

DispatchTagCache::DispatchTagCache(InternFn intern, size_t max_tags_per_kind)
    : intern_(intern), max_tags_per_kind_(max_tags_per_kind) {}

uint32_t DispatchTagCache::InternAndRemember(IdMap& ids, const OpShape& key,
                                             const std::string& text) {
  const uint32_t id = intern_(text);
  ids.emplace(key, id);
  return id;
}

uint32_t DispatchTagCache::TagId(const OpShape& shape) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = shape_ids_.find(shape); it != shape_ids_.end()) return it->second;
  size_t& kind_tags = tags_per_kind_[static_cast<size_t>(shape.kind)];
  if (kind_tags < max_tags_per_kind_) {
    ++kind_tags;
    return InternAndRemember(shape_ids_, shape, DispatchTag(shape));
  }
  ++generic_fallbacks_;
  OpShape generic_key = shape;
  generic_key.dims = {};
  if (auto it = generic_ids_.find(generic_key); it != generic_ids_.end()) return it->second;
  return InternAndRemember(generic_ids_, generic_key, GenericDispatchTag(shape));
}

uint64_t DispatchTagCache::generic_fallbacks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return generic_fallbacks_;
}

}  // namespace optrace::kernels
