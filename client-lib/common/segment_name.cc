#include "common/segment_name.h"

#include <charconv>
#include <cstdio>

namespace optrace {
namespace {

// Parses all of `text` as an unsigned integer in `base`; rejects signs,
// spaces, leading '+' and overflow.
template <typename T>
std::optional<T> ParseWhole(std::string_view text, int base) {
  if (text.empty()) return std::nullopt;
  T value{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value, base);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

}  // namespace

bool IsValidNamespace(std::string_view ns) {
  if (ns.empty() || ns.size() > kMaxNamespaceBytes) return false;
  for (char c : ns) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string SegmentName::Format() const {
  char tail[64];
  std::snprintf(tail, sizeof tail, ".%u.%u.%016llx", uid, pid,
                static_cast<unsigned long long>(nonce));
  return ns + tail;
}

std::optional<SegmentName> SegmentName::Parse(std::string_view name) {
  // Split from the right: the namespace itself contains no '.'.
  const size_t p3 = name.rfind('.');
  if (p3 == std::string_view::npos) return std::nullopt;
  const size_t p2 = name.rfind('.', p3 - 1);
  if (p3 == 0 || p2 == std::string_view::npos) return std::nullopt;
  const size_t p1 = name.rfind('.', p2 - 1);
  if (p2 == 0 || p1 == std::string_view::npos) return std::nullopt;

  SegmentName out;
  out.ns = std::string(name.substr(0, p1));
  if (!IsValidNamespace(out.ns)) return std::nullopt;
  const std::string_view nonce_text = name.substr(p3 + 1);
  if (nonce_text.size() != 16) return std::nullopt;
  const auto uid = ParseWhole<uint32_t>(name.substr(p1 + 1, p2 - p1 - 1), 10);
  const auto pid = ParseWhole<uint32_t>(name.substr(p2 + 1, p3 - p2 - 1), 10);
  const auto nonce = ParseWhole<uint64_t>(nonce_text, 16);
  if (!uid || !pid || !nonce || *pid == 0) return std::nullopt;
  out.uid = *uid;
  out.pid = *pid;
  out.nonce = *nonce;
  // Only the canonical spelling is a segment name (no leading zeros etc.).
  if (out.Format() != name) return std::nullopt;
  return out;
}

std::string ControlSegmentName(std::string_view ns, uint32_t uid) {
  return std::string(ns) + ".control." + std::to_string(uid);
}

}  // namespace optrace
