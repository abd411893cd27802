#include "common/byte_size.h"

#include <cctype>
#include <charconv>

namespace optrace {

bool SplitNumber(std::string_view text, uint64_t* number, std::string* unit) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + i, *number);
  if (ec != std::errc()) return false;
  size_t j = i;
  while (j < text.size() && text[j] == ' ') ++j;
  *unit = std::string(text.substr(j));
  return true;
}

std::optional<uint64_t> ParseByteSize(std::string_view text) {
  uint64_t n = 0;
  std::string unit;
  if (!SplitNumber(text, &n, &unit)) return std::nullopt;
  std::string u;
  for (char c : unit) u.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  uint64_t mult;
  if (u.empty() || u == "b") {
    mult = 1;
  } else if (u == "k" || u == "kb" || u == "kib") {
    mult = 1ULL << 10;
  } else if (u == "m" || u == "mb" || u == "mib") {
    mult = 1ULL << 20;
  } else if (u == "g" || u == "gb" || u == "gib") {
    mult = 1ULL << 30;
  } else if (u == "t" || u == "tb" || u == "tib") {
    mult = 1ULL << 40;
  } else {
    return std::nullopt;
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(n, mult, &bytes)) return std::nullopt;
  return bytes;
}

}  // namespace optrace
