// Listings a runtime registers (optrace.h: optrace_register_listing;
// optrace.hpp: optrace::RegisterListing).
#include <cerrno>
#include <string_view>

#include "optrace/optrace.h"
#include "optrace/optrace.hpp"
#include "runtime.h"

namespace optrace {

int RegisterListing(std::string_view name, std::string_view text) noexcept {
  try {
    return client::Runtime::Get().listings().Register(name, text);
  } catch (...) {  // allocation failure: never let it reach the runtime
    return -ENOSPC;
  }
}

}  // namespace optrace

extern "C" int optrace_register_listing(const char* name, const char* text, size_t len) {
  if (name == nullptr || (text == nullptr && len > 0)) return -EINVAL;
  return optrace::RegisterListing(name, std::string_view(text != nullptr ? text : "", len));
}
