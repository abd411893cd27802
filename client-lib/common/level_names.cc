#include "common/level_names.h"

#include <array>
#include <cctype>
#include <string>

namespace optrace {
namespace {

constexpr std::array<std::string_view, abi::kMaxLevel + 1> kNames = {
    "off", "error", "warning", "info", "debug", "trace"};

}  // namespace

std::optional<abi::LevelValue> ParseLevel(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "warn") lower = "warning";
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (lower == kNames[i] || lower == std::string(1, static_cast<char>('0' + i))) {
      return static_cast<abi::LevelValue>(i);
    }
  }
  return std::nullopt;
}

std::string_view LevelName(abi::LevelValue level) {
  const auto index = static_cast<size_t>(level);
  return index < kNames.size() ? kNames[index] : std::string_view("invalid");
}

std::string_view LevelNameList() { return "off, error, warning, info, debug, trace"; }

}  // namespace optrace
