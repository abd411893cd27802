#include "fleet/fleet_cursor.h"

#include <charconv>
#include <vector>

namespace optrace::daemon {
namespace {

constexpr std::string_view kPrefix = "fleet:";
constexpr size_t kMaxNodeBytes = 255;
constexpr char kHexDigits[] = "0123456789abcdef";

template <typename T>
bool ParseNumber(std::string_view text, T* out) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

std::string EncodeFleetCursor(const FleetCursor& cursor) {
  std::string hex;
  hex.reserve(cursor.node.size() * 2);
  for (unsigned char c : cursor.node) {
    hex.push_back(kHexDigits[c >> 4]);
    hex.push_back(kHexDigits[c & 0xf]);
  }
  return std::string(kPrefix) + std::to_string(cursor.start_ns) + ":" +
         std::to_string(cursor.store_id) + ":" + std::to_string(cursor.page_id) + ":" +
         std::to_string(cursor.page_index) + ":" + hex;
}

Result<FleetCursor> DecodeFleetCursor(std::string_view text_untrusted) {
  const Status bad = Status::InvalidArgument(
      "cursor \"" + std::string(text_untrusted.substr(0, 80)) +
      "\" is not one this daemon returned for a fleet query: pass next_cursor back as it came");
  if (text_untrusted.substr(0, kPrefix.size()) != kPrefix) return bad;
  std::vector<std::string_view> parts;
  std::string_view rest = text_untrusted.substr(kPrefix.size());
  while (parts.size() < 4) {
    const size_t colon = rest.find(':');
    if (colon == std::string_view::npos) return bad;
    parts.push_back(rest.substr(0, colon));
    rest = rest.substr(colon + 1);
  }
  FleetCursor cursor;
  if (!ParseNumber(parts[0], &cursor.start_ns) || !ParseNumber(parts[1], &cursor.store_id) ||
      !ParseNumber(parts[2], &cursor.page_id) || !ParseNumber(parts[3], &cursor.page_index)) {
    return bad;
  }
  if (rest.size() % 2 != 0 || rest.size() > 2 * kMaxNodeBytes) return bad;
  for (size_t i = 0; i < rest.size(); i += 2) {
    const int high = HexValue(rest[i]);
    const int low = HexValue(rest[i + 1]);
    if (high < 0 || low < 0) return bad;
    cursor.node.push_back(static_cast<char>(high * 16 + low));
  }
  return cursor;
}

}  // namespace optrace::daemon
