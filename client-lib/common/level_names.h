// Level names as users type and read them: off, error, warning, info,
// debug, trace.
#ifndef OPTRACE_COMMON_LEVEL_NAMES_H_
#define OPTRACE_COMMON_LEVEL_NAMES_H_

#include <optional>
#include <string_view>

#include "optrace/abi.h"

namespace optrace {

// Parses a level name (case-insensitive; "warn" is accepted for warning) or
// its number 0..5. Returns nullopt for anything else.
std::optional<abi::LevelValue> ParseLevel(std::string_view text);

// The canonical lowercase name of `level`.
std::string_view LevelName(abi::LevelValue level);

// The list of valid names, for error messages: "off, error, ..., trace".
std::string_view LevelNameList();

}  // namespace optrace

#endif  // OPTRACE_COMMON_LEVEL_NAMES_H_
