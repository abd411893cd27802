// Appending numbers to export text without temporary strings.
#ifndef OPTRACE_DAEMON_EXPORT_EXPORT_TEXT_H_
#define OPTRACE_DAEMON_EXPORT_EXPORT_TEXT_H_

#include <charconv>
#include <concepts>
#include <string>

namespace optrace::daemon {

// Appends `value` in decimal.
template <std::integral Int>
void AppendDecimal(std::string& out, Int value) {
  char digits[24];  // the longest 64-bit value, sign included, is 20 characters
  const auto result = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, static_cast<size_t>(result.ptr - digits));
}

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_EXPORT_EXPORT_TEXT_H_
