// What a live record is as a Tail item, built with the protobuf API from
// the record's own values, not through TailMessageEncoder nor the
// LiveRecord conversions: the reference that the encoder's unit tests and
// its fuzzer hold the encoder's bytes to.
#ifndef OPTRACE_TESTS_UNIT_DAEMON_LIVE_EXPECTED_TAIL_ITEM_H_
#define OPTRACE_TESTS_UNIT_DAEMON_LIVE_EXPECTED_TAIL_ITEM_H_

#include <cstdint>

#include "live/live_record.h"
#include "live/published_strings.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::daemon::testing {

// The TailResponse holding `record` (a LiveEvent for a half or an instant,
// a Span for a span), its ids resolved through `strings` and its label
// through `labels` (an id not published reads as "").
v1::TailResponse ExpectedTailItem(const LiveRecord& record, const PublishedStrings& strings,
                                  const PublishedStrings& labels);

// The TailResponse holding a Lag of `skipped` items.
v1::TailResponse ExpectedLagItem(uint64_t skipped);

}  // namespace optrace::daemon::testing

#endif  // OPTRACE_TESTS_UNIT_DAEMON_LIVE_EXPECTED_TAIL_ITEM_H_
