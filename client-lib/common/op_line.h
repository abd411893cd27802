// The op event text format shared by OPTRACE_SINK=stderr and `optrace tail`:
//   [OP] LAUNCH elementwise [id=40028] target=cpu:0
// Extra `key=value` fields are appended by callers only when asked for.
#ifndef OPTRACE_COMMON_OP_LINE_H_
#define OPTRACE_COMMON_OP_LINE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "optrace/abi.h"

namespace optrace {

// "cpu", "gpu", "other" or "none".
std::string_view TargetKindName(abi::TargetKind target);

// Parses "cpu", "gpu" or "other"; returns false for anything else.
bool ParseTargetKind(std::string_view text, abi::TargetKind* out);

// "LAUNCH", "COMPLETE", "MARK" or "COUNTER".
std::string_view EventKindWord(abi::EventKind kind);

// One event as text, without a trailing newline: for LAUNCH and COMPLETE
// "[OP] <KIND> <name> [id=<id>] target=<target>:<device>"; for marks
// "[MARK] <name> target=..."; for counters "[COUNTER] <name> value=<v>".
std::string FormatOpLine(abi::EventKind kind, std::string_view name, uint64_t op_id,
                         abi::TargetKind target, uint32_t device, int64_t counter_value = 0);

}  // namespace optrace

#endif  // OPTRACE_COMMON_OP_LINE_H_
