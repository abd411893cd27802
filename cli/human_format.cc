#include "human_format.h"

#include <fmt/core.h>

#include <array>
#include <cmath>
#include <ctime>
#include <limits>

namespace optrace::cli {
namespace {

struct Unit {
  std::string_view name;
  double scale;  // in the base unit
};

constexpr std::array<Unit, 4> kDurationUnits = {
    {{"ns", 1.0}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}}};
constexpr std::array<Unit, 5> kByteUnits = {{{"B", 1.0},
                                             {"KiB", 1024.0},
                                             {"MiB", 1048576.0},
                                             {"GiB", 1073741824.0},
                                             {"TiB", 1099511627776.0}}};
// Decimal places that leave three significant digits, by magnitude.
constexpr int kSignificantDigits = 3;

// `value` with three significant digits in the largest unit of `units`
// that keeps it at 1 or more; `base_whole` prints the first unit without
// decimals (nanoseconds and bytes are whole numbers), and the last unit
// prints whole beyond 999.
template <size_t N>
std::string FormatScaled(double value, const std::array<Unit, N>& units, bool base_whole,
                         std::string_view separator) {
  size_t u = 0;
  while (u + 1 < N && value >= units[u + 1].scale) ++u;
  while (true) {
    const double scaled = value / units[u].scale;
    if (u == 0 && base_whole) {
      const double whole = std::round(scaled);
      if (whole < 1000.0 || N == 1)
        return fmt::format("{:.0f}{}{}", whole, separator, units[u].name);
      ++u;
      continue;
    }
    // Decimals so that the *rounded* number keeps three significant digits:
    // 99.96 must become "100", not "100.0".
    int decimals = kSignificantDigits - 1;
    for (double limit = 10.0; decimals > 0; limit *= 10.0, --decimals) {
      const double factor = std::pow(10.0, decimals);
      if (std::round(scaled * factor) / factor < limit) break;
    }
    if (decimals == 0 && std::round(scaled) >= 1000.0 && u + 1 < N) {
      ++u;  // 999.7 µs rounds to 1000: say "1.00 ms"
      continue;
    }
    return fmt::format("{:.{}f}{}{}", scaled, decimals, separator, units[u].name);
  }
}

}  // namespace

std::string FormatDuration(uint64_t ns, UnitSpacing spacing) {
  return FormatScaled(static_cast<double>(ns), kDurationUnits, /*base_whole=*/true,
                      spacing == UnitSpacing::kSpaced ? " " : "");
}

uint64_t Magnitude(int64_t value) {
  return value < 0 ? static_cast<uint64_t>(-(value + 1)) + 1 : static_cast<uint64_t>(value);
}

std::string FormatDurationChange(int64_t ns) {
  if (ns == 0) return FormatDuration(0);
  return (ns < 0 ? "-" : "+") + FormatDuration(Magnitude(ns));
}

std::optional<uint64_t> ParseDuration(std::string_view text) {
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  size_t number_end = 0;
  while (number_end < text.size() &&
         ((text[number_end] >= '0' && text[number_end] <= '9') || text[number_end] == '.')) {
    ++number_end;
  }
  const std::string number(text.substr(0, number_end));
  std::string_view unit = text.substr(number_end);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (number.empty() || number == "." || number.find('.') != number.rfind('.')) return std::nullopt;
  const double value = std::stod(number);
  struct Suffix {
    std::string_view name;
    double ns;
  };
  static constexpr std::array<Suffix, 7> kSuffixes = {
      {{"ns", 1.0}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}}};
  double scale = 0.0;
  if (unit.empty()) {
    if (value != 0.0) return std::nullopt;  // "5" alone: 5 what?
    scale = 1.0;
  }
  for (const Suffix& s : kSuffixes) {
    if (unit == s.name) scale = s.ns;
  }
  if (scale == 0.0) return std::nullopt;
  const double ns = std::round(value * scale);
  if (!(ns < static_cast<double>(std::numeric_limits<uint64_t>::max()))) return std::nullopt;
  return static_cast<uint64_t>(ns);
}

std::string FormatBytes(uint64_t bytes) {
  return FormatScaled(static_cast<double>(bytes), kByteUnits, /*base_whole=*/true, " ");
}

std::string FormatWallTime(int64_t unix_ns) {
  if (unix_ns == 0) return "-";
  const std::time_t seconds = static_cast<std::time_t>(unix_ns / 1000000000);
  std::tm local{};
  if (::localtime_r(&seconds, &local) == nullptr) return "-";
  std::array<char, 32> text{};
  const size_t n = std::strftime(text.data(), text.size(), "%Y-%m-%d %H:%M:%S", &local);
  return std::string(text.data(), n);
}

std::string FormatRatio(double ratio) {
  if (!std::isfinite(ratio)) return "-";
  const int decimals = ratio >= 100.0 ? 0 : ratio >= 10.0 ? 1 : ratio >= 1.0 ? 2 : 3;
  return fmt::format("{:.{}f}x", ratio, decimals);
}

std::string FormatShare(double fraction) { return fmt::format("{:.1f}%", fraction * 100.0); }

}  // namespace optrace::cli
