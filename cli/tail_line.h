// One line of `optrace tail` output per item the daemon streams.
//
//   [OP] LAUNCH elementwise [id=40028] target=cpu:0
//   [OP] COMPLETE elementwise [id=40028] target=cpu:0
//   [MARK] checkpoint target=cpu:0
//   [COUNTER] queue_depth value=12
//   [SPAN] matmul [id=7] target=gpu:0 dur=1.23ms
//   [SPAN] matmul [id=8] target=gpu:0 status=incomplete
//   [LAG] lagged, 1200 events skipped
//
// Events are the design's text format, made by the same function as the
// producer's OPTRACE_SINK=stderr lines (common/op_line.h). Verbose lines
// append, space-separated and only when known: pid=N (events) or
// session=N (spans), tag=T, dur=1.23ms (COMPLETE events whose LAUNCH was
// seen), device_dur=1.10ms (device-timed ops), src=file:line.
#ifndef OPTRACE_CLI_TAIL_LINE_H_
#define OPTRACE_CLI_TAIL_LINE_H_

#include <string>

#include "optrace/v1/optrace.pb.h"
#include "palette.h"

namespace optrace::cli {

// The line for `item`, without a newline. On a coloured palette the
// leading "[OP] LAUNCH" / "[OP] COMPLETE" / "[SPAN]" words are painted:
// launches, completions and incomplete ops each in their own tone, lag in
// the problem tone. An item this CLI does not know gives "[?] ...".
std::string FormatTailLine(const v1::TailResponse& item, bool verbose, const Palette& palette);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_TAIL_LINE_H_
