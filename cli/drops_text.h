// Lost events in words: "none", or the total and each non-zero cause,
// "1234 events (ring_full 1200, shed 34); 3 strings not interned; 90 names
// capped".
#ifndef OPTRACE_CLI_DROPS_TEXT_H_
#define OPTRACE_CLI_DROPS_TEXT_H_

#include <string>

#include "optrace/v1/optrace.pb.h"

namespace optrace::cli {

std::string DescribeDrops(const v1::Drops& drops);

// The names lost, which are not events: "" when none, else
// "; 3 strings not interned; 90 names capped" (each part only when not 0),
// for the end of a line that counts the events.
std::string DescribeNameLosses(const v1::Drops& drops);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_DROPS_TEXT_H_
