// The span selection of one QueryOps page: the first spans after a cursor,
// in a session whose pages of spans may overlap in time.
#ifndef OPTRACE_DAEMON_QUERY_PAGE_SCAN_H_
#define OPTRACE_DAEMON_QUERY_PAGE_SCAN_H_

#include <cstddef>
#include <optional>
#include <vector>

#include "common/status.h"
#include "model/span.h"
#include "query/query_cursor.h"
#include "query/span_filter.h"
#include "storage/span_reader.h"

namespace optrace::daemon {

// The first `count` spans of `session` that pass `filter` and come after
// `cursor` (all of them when it is absent), in SpanOrderLess order.
//
// Spans are stored in pages ordered by their first start, but a long op is
// stored when it completes, so a page can hold spans older than the pages
// before it: no prefix of the stored order is the answer. The scan reads
// the session in consecutive time windows, offering every matching span
// to a bounded heap of `count` spans; the reader returns every span whose
// start is in a window, whatever page holds it. Once the heap is full
// after a window, every span not yet read starts after that window, so
// after every span kept: the scan stops. The first window is 1 ms wide
// from the first stored span; each next one is wider, by the factor the
// last window's match rate says is needed (at least 2, so the scan ends
// within ~64 windows), and an empty window is followed by a query for the
// next stored span, so that gaps cost one query. Cost: the pages under the
// windows up to the page's end (re-read where windows share a page), not
// the whole session.
//
// REQUIRES: count >= 1. `reader` and `filter` are borrowed for the call;
// check the filter's StringCache status afterwards. Errors: the reader's.
Result<std::vector<Span>> ScanPage(SpanReader& reader, SessionId session, SpanFilter& filter,
                                   const std::optional<QueryCursor>& cursor, size_t count);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_PAGE_SCAN_H_
