// NVTX domains and categories, and the optrace tag each (domain, category)
// pair of an event becomes: "domain/category", "domain", "category" or
// none for the default domain without a category.
#ifndef OPTRACE_NVTX_DOMAIN_REGISTRY_H_
#define OPTRACE_NVTX_DOMAIN_REGISTRY_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "instrument/loss_counter.h"
#include "instrument/name_table.h"

namespace optrace::nvtx {

// One domain: its name ("" for NVTX's default domain) and its categories.
// A category is named with nvtxNameCategory / nvtxDomainNameCategory; an
// unnamed one shows as its number. Tags are interned through `names`, so
// they count against its cap.
// Thread-safe: any thread may name categories and ask for tags. A Domain
// lives as long as the process (NVTX hands its address out as the handle).
class Domain {
 public:
  Domain(std::string name, instrument::NameTable& names);
  Domain(const Domain&) = delete;
  Domain& operator=(const Domain&) = delete;

  const std::string& name() const { return name_; }

  // The tag id of an event in this domain with `category` (0 = none).
  // Lock-free for categories below kDirectCategories once computed.
  uint32_t TagId(uint32_t category);

  // Names `category`; later events with it get the new tag.
  void NameCategory(uint32_t category, std::string_view name);

 private:
  static constexpr uint32_t kDirectCategories = 256;
  static constexpr uint32_t kNotComputed = UINT32_MAX;

  // Computes and stores the tag of `category`. Takes mu_.
  uint32_t ComputeTagId(uint32_t category);

  const std::string name_;
  instrument::NameTable& names_;
  // Tag ids of categories below kDirectCategories, kNotComputed until the
  // first event (or after a rename).
  std::array<std::atomic<uint32_t>, kDirectCategories> direct_tags_;
  std::mutex mu_;
  std::unordered_map<uint32_t, std::string> category_names_;  // GUARDED_BY(mu_)
  std::unordered_map<uint32_t, uint32_t> other_tags_;         // GUARDED_BY(mu_); >= kDirect...
};

// Every domain of the process. Creating a domain whose name exists returns
// the existing one. At most `max_domains` are created; later names share
// one "<too many domains>" domain and count in `over_cap`.
// Thread-safe. Domains are never destroyed: NVTX may still use a handle on
// another thread after nvtxDomainDestroy, and their number is capped.
class DomainRegistry {
 public:
  DomainRegistry(size_t max_domains, instrument::NameTable& names,
                 instrument::LossCounter& over_cap);

  Domain& default_domain() { return default_domain_; }

  // The domain named `name` (non-empty), created on first use.
  Domain& Create(std::string_view name);

 private:
  const size_t max_domains_;
  instrument::NameTable& names_;
  instrument::LossCounter& over_cap_;
  Domain default_domain_;
  Domain over_cap_domain_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Domain>> domains_;  // GUARDED_BY(mu_)
};

}  // namespace optrace::nvtx

#endif  // OPTRACE_NVTX_DOMAIN_REGISTRY_H_
