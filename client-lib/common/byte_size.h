// Sizes and numbers with a unit as users write them ("512MiB", "30s"):
// shared by the daemon's configuration and flags and by the CLI.
#ifndef OPTRACE_COMMON_BYTE_SIZE_H_
#define OPTRACE_COMMON_BYTE_SIZE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace optrace {

// Splits "512 MiB" into 512 and "MiB": leading decimal digits (at least
// one, fitting 64 bits), then spaces, then the rest as the unit. False when
// there are no digits or the number does not fit.
bool SplitNumber(std::string_view text, uint64_t* number, std::string* unit);

// Parses "1073741824", "512MiB", "1GB", "64k"... (units b, k, m, g, t, with
// or without "b"/"ib", any case; all powers of 1024) into bytes; nullopt
// for anything else or past 2^64 - 1.
std::optional<uint64_t> ParseByteSize(std::string_view text);

}  // namespace optrace

#endif  // OPTRACE_COMMON_BYTE_SIZE_H_
