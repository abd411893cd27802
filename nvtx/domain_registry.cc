#include "nvtx/domain_registry.h"

namespace optrace::nvtx {

Domain::Domain(std::string name, instrument::NameTable& names)
    : name_(std::move(name)), names_(names) {
  for (auto& tag : direct_tags_) tag.store(kNotComputed, std::memory_order_relaxed);
}

uint32_t Domain::TagId(uint32_t category) {
  if (category < kDirectCategories) {
    // Relaxed: a tag id is a plain value; its string was published by
    // Intern before the id existed.
    const uint32_t tag = direct_tags_[category].load(std::memory_order_relaxed);
    if (tag != kNotComputed) return tag;
  }
  return ComputeTagId(category);
}

uint32_t Domain::ComputeTagId(uint32_t category) {
  std::lock_guard<std::mutex> lock(mu_);
  if (category >= kDirectCategories) {
    if (auto it = other_tags_.find(category); it != other_tags_.end()) return it->second;
  }
  std::string category_text;
  if (category != 0) {
    auto it = category_names_.find(category);
    category_text = it != category_names_.end() ? it->second : std::to_string(category);
  }
  std::string text = name_;
  if (!text.empty() && !category_text.empty()) text += '/';
  text += category_text;
  const uint32_t tag = text.empty() ? abi::kStringNone : names_.Id(text);
  if (category < kDirectCategories) {
    direct_tags_[category].store(tag, std::memory_order_relaxed);
  } else {
    other_tags_[category] = tag;
  }
  return tag;
}

void Domain::NameCategory(uint32_t category, std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  category_names_[category] = std::string(name);
  if (category < kDirectCategories) {
    direct_tags_[category].store(kNotComputed, std::memory_order_relaxed);
  } else {
    other_tags_.erase(category);
  }
}

DomainRegistry::DomainRegistry(size_t max_domains, instrument::NameTable& names,
                               instrument::LossCounter& over_cap)
    : max_domains_(max_domains),
      names_(names),
      over_cap_(over_cap),
      default_domain_("", names),
      over_cap_domain_("<too many domains>", names) {}

Domain& DomainRegistry::Create(std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& domain : domains_) {
    if (domain->name() == name) return *domain;
  }
  if (domains_.size() >= max_domains_) {
    over_cap_.Add();
    return over_cap_domain_;
  }
  domains_.push_back(std::make_unique<Domain>(std::string(name), names_));
  return *domains_.back();
}

}  // namespace optrace::nvtx
