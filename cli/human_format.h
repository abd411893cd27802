// Numbers as people read them: durations with three significant digits
// ("950 ns", "1.23 ms", "12.3 s"), byte sizes, wall-clock times, ratios,
// and durations typed on the command line ("1ms", "2.5s").
#ifndef OPTRACE_CLI_HUMAN_FORMAT_H_
#define OPTRACE_CLI_HUMAN_FORMAT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace optrace::cli {

// Whether a unit is separated from its number: "1.23 ms" in tables and
// prose, "1.23ms" inside `key=value` fields.
enum class UnitSpacing { kSpaced, kCompact };

// `ns` in the largest of ns, µs, ms, s that keeps the number at 1 or more,
// with three significant digits ("950 ns", "1.00 µs", "12.3 s"); nanosecond
// counts are whole ("5 ns"), and 1000 s and more print whole seconds
// ("4521 s").
std::string FormatDuration(uint64_t ns, UnitSpacing spacing = UnitSpacing::kSpaced);

// |value|, exact for INT64_MIN too: the size of a signed change.
uint64_t Magnitude(int64_t value);

// Like FormatDuration with a sign: "+1.23 ms", "-950 ns", "0 ns".
std::string FormatDurationChange(int64_t ns);

// A duration typed by the user: a non-negative number and a unit of ns, us
// (or µs), ms, s, m or h ("1ms", "2.5 s", "100us"); "0" alone is accepted.
// Returns nullopt for anything else, or for more than ~584 years.
std::optional<uint64_t> ParseDuration(std::string_view text);

// `bytes` in B, KiB, MiB, GiB or TiB with three significant digits.
std::string FormatBytes(uint64_t bytes);

// A wall-clock time in the local time zone: "2024-05-01 14:03:07"; "-" for 0.
std::string FormatWallTime(int64_t unix_ns);

// A ratio as a factor: "1.23x", "0.500x", "12.0x".
std::string FormatRatio(double ratio);

// A fraction as a percentage with one decimal: "12.3%".
std::string FormatShare(double fraction);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_HUMAN_FORMAT_H_
