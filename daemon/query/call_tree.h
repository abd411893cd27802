// GetTree: a session's ops as a call tree merged by name (and tag), from
// the parent links of its stored spans.
#ifndef OPTRACE_DAEMON_QUERY_CALL_TREE_H_
#define OPTRACE_DAEMON_QUERY_CALL_TREE_H_

#include <cstddef>
#include <cstdint>

#include "common/status.h"
#include "optrace/v1/optrace.pb.h"
#include "storage/span_reader.h"

namespace optrace::daemon {

// The most OK spans one tree reads (about 40 bytes each while it is
// built): a larger session is refused, naming the filters that narrow it.
inline constexpr size_t kMaxTreeSpans = 4'000'000;
// The most nodes one response holds; the rest are counted as left out.
inline constexpr size_t kMaxTreeNodes = 20'000;

// Fills `response` with the call tree of `request.session_id()`'s stored
// OK spans that pass `request.filter()` (and with has_step began in step
// `request.step()`: FindStepStartRange). A span's node is its parent's
// node's child of the span's name (and tag with by_tag); a span is a root
// when its parent is not among those spans, or when the parent's op id is
// not below its own (op ids increase on each thread and a parent begins
// before its children: a link that breaks this is a broken producer's,
// and is not followed, so no chain of links can loop). Nodes sum their
// spans' counts, durations and self times (SelfNs); the response's
// total_ns is the sum over the roots. `max_depth` and `min_share` leave
// nodes out with their subtrees, and so does the node cap (kMaxTreeNodes:
// the nodes after it in depth-first order); each is counted in
// nodes_left_out.
// Errors: kInvalidArgument for a filter that does not compile or that asks
// for a status other than OK; kNotFound for a step the session does not
// have; kFailedPrecondition for a step whose spans the rolling window
// trimmed (FindStepStartRange); kResourceExhausted beyond kMaxTreeSpans
// spans (or, with a step, kMaxStepSpans); the reader's. Thread rules:
// `reader` is used on the calling thread only.
Status GetTree(SpanReader& reader, const v1::GetTreeRequest& request,
               v1::GetTreeResponse* response);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_CALL_TREE_H_
