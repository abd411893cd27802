// OPTRACE_SINK=stderr: events printed from inside the process, in the
// design's text format, so the library is useful with no daemon at all.
#ifndef OPTRACE_CLIENT_STDERR_SINK_H_
#define OPTRACE_CLIENT_STDERR_SINK_H_

#include "optrace/abi.h"
#include "string_interner.h"

namespace optrace::client {

// Writes `event` as one line to stderr with a single write(2), so lines of
// concurrent threads never interleave. Resolves the name through `strings`.
void PrintEventToStderr(const abi::OpEvent& event, StringInterner& strings);

}  // namespace optrace::client

#endif  // OPTRACE_CLIENT_STDERR_SINK_H_
