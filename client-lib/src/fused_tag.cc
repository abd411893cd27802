// The tag of a fused op (optrace_fused_tag, optrace::FusedTag): the tags of
// the ops it replaces joined by '+' (docs/dispatch-names.md).
#include <cerrno>
#include <cstring>
#include <string>

#include "optrace/abi.h"
#include "optrace/optrace.h"
#include "optrace/optrace.hpp"

namespace {

constexpr char kPartSeparator = '+';

// The length of the fused tag of the `count` parts that `part_at(i)`
// returns (std::string_view), or -EINVAL (fewer than two parts; a part
// empty or containing the separator) or -E2BIG (longer than the string
// table keeps: a cut tag would name a wrong last part).
template <typename PartAt>
long FusedTagLength(size_t count, PartAt part_at) {
  if (count < 2) return -EINVAL;
  size_t length = count - 1;  // the separators
  for (size_t i = 0; i < count; ++i) {
    const std::string_view part = part_at(i);
    if (part.empty() || part.find(kPartSeparator) != std::string_view::npos) return -EINVAL;
    length += part.size();
    if (length > optrace::abi::kMaxStringBytes) return -E2BIG;
  }
  return static_cast<long>(length);
}

}  // namespace

namespace optrace {

std::string FusedTag(std::span<const std::string_view> parts) noexcept {
  if (FusedTagLength(parts.size(), [&](size_t i) { return parts[i]; }) < 0) return {};
  try {
    std::string tag(parts[0]);
    for (size_t i = 1; i < parts.size(); ++i) tag.append(1, kPartSeparator).append(parts[i]);
    return tag;
  } catch (...) {  // allocation failure: never let it reach the runtime
    return {};
  }
}

}  // namespace optrace

extern "C" int optrace_fused_tag(const char* const* parts, size_t count, char* out,
                                 size_t out_size) {
  if (parts == nullptr || out == nullptr) return -EINVAL;
  for (size_t i = 0; i < count; ++i) {
    if (parts[i] == nullptr) return -EINVAL;
  }
  const long length = FusedTagLength(count, [&](size_t i) { return std::string_view(parts[i]); });
  if (length < 0) return static_cast<int>(length);
  if (static_cast<size_t>(length) >= out_size) return -ENOSPC;
  char* at = out;
  for (size_t i = 0; i < count; ++i) {
    if (i != 0) *at++ = kPartSeparator;
    const size_t bytes = std::strlen(parts[i]);
    std::memcpy(at, parts[i], bytes);
    at += bytes;
  }
  *at = '\0';
  return static_cast<int>(length);
}
