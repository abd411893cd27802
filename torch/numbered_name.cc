#include "torch/numbered_name.h"

#include <limits>

namespace optrace::torch_ops {

std::optional<NumberedName> SplitNumberedName(std::string_view name) {
  const size_t hash = name.rfind('#');
  if (hash == std::string_view::npos) return std::nullopt;
  const std::string_view digits = name.substr(hash + 1);
  if (digits.empty()) return std::nullopt;
  // "0" alone is a number; "07" would not be written back as it was.
  if (digits.size() > 1 && digits.front() == '0') return std::nullopt;
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  uint64_t number = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<uint64_t>(c - '0');
    if (number > (kMax - digit) / 10) return std::nullopt;  // would pass INT64_MAX
    number = number * 10 + digit;
  }
  return NumberedName{name.substr(0, hash + 1), static_cast<int64_t>(number)};
}

}  // namespace optrace::torch_ops
