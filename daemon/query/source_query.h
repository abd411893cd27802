// GetSource's logic, without gRPC: the stored source listing around an
// op's call site, or around a "file:line" location given directly. Whether
// the session exists and whether the caller may see it is checked by the
// service before.
#ifndef OPTRACE_DAEMON_QUERY_SOURCE_QUERY_H_
#define OPTRACE_DAEMON_QUERY_SOURCE_QUERY_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "optrace/v1/optrace.pb.h"
#include "storage/listing_store.h"
#include "storage/span_reader.h"

namespace optrace::daemon {

// The longest source_location a request may give.
inline constexpr size_t kMaxSourceLocationBytes = 4096;

// A line of a file, as a "file:line" source location names it.
struct SourceLine {
  std::string file;
  uint32_t line = 0;
};

// Splits `location_untrusted` at its last ':' into a file (not empty) and
// a line (decimal digits only, at most 2^32 - 1): "a:b.py:37" is line 37
// of "a:b.py". nullopt for anything else ("model.py", "model.py:", ":3",
// "model.py:3x"). Thread rules: pure.
std::optional<SourceLine> ParseSourceLine(std::string_view location_untrusted);

// The listing of `listings` whose lines [first_line, first_line +
// line_count) hold `line`; of several, the one whose middle is nearest to
// it (the first of those equally near); nullptr when none holds it. The
// result borrows `listings`. Thread rules: pure.
const StoredListing* ChooseListing(const std::vector<StoredListing>& listings, uint32_t line);

// Fills `response` with `listing` around `at` (whose line it holds): the
// `context` lines before and after it that the listing has (0: all its
// lines). Thread rules: pure.
void FillSource(const StoredListing& listing, const SourceLine& at, uint32_t context,
                v1::GetSourceResponse* response);

// GetSource over one snapshot of the database (its own read transaction
// on `reader`): the location is `request.source_location()`, or with
// `request.op_id()` the source location of that op of the session (a
// stored span's, else a persisted open half's: an op still running across
// a daemon restart). Cost: with an op id, one pass over the session's op
// id and location columns until the op is found; then the session's
// listings of one file.
// REQUIRES: `reader` belongs to the calling thread and has no transaction
// open. Errors: kInvalidArgument for neither or both of op_id and
// source_location, and for a location longer than
// kMaxSourceLocationBytes or not file:line; kNotFound, each message
// naming what is missing: "no session 7", "session 7 has no op 123", "op
// 123 of session 7 has no source location", "session 7 has no listing of
// model.py around line 37 (listings: 3 stored, 1 refused, ...)"; the
// reader's (SQLite, damaged data).
Status GetSource(SpanReader& reader, const v1::GetSourceRequest& request,
                 v1::GetSourceResponse* response);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_SOURCE_QUERY_H_
