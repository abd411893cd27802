#include "storage/span_time_range.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace optrace::daemon {

int64_t ClampToNs(__int128 ns) {
  return static_cast<int64_t>(std::clamp<__int128>(ns, std::numeric_limits<int64_t>::min(),
                                                   std::numeric_limits<int64_t>::max()));
}

int64_t SpanEndNs(const Span& span) {
  return ClampToNs(static_cast<__int128>(span.start_ns) + KnownDuration(span).value_or(0));
}

Status CheckTimeRange(int64_t start_unix_ns, int64_t end_unix_ns) {
  if (start_unix_ns == 0 && end_unix_ns == 0) return Status::Ok();
  if (start_unix_ns < 0) {
    return Status::InvalidArgument("start_unix_ns " + std::to_string(start_unix_ns) +
                                   " is negative");
  }
  if (end_unix_ns < 0) {
    return Status::InvalidArgument("end_unix_ns " + std::to_string(end_unix_ns) + " is negative");
  }
  if (start_unix_ns == 0 || end_unix_ns == 0) {
    const bool start_set = start_unix_ns != 0;
    return Status::InvalidArgument(std::string(start_set ? "end_unix_ns" : "start_unix_ns") +
                                   " is not set but " +
                                   (start_set ? "start_unix_ns " + std::to_string(start_unix_ns)
                                              : "end_unix_ns " + std::to_string(end_unix_ns)) +
                                   " is: set both, or neither for the whole session");
  }
  if (end_unix_ns <= start_unix_ns) {
    return Status::InvalidArgument("end_unix_ns " + std::to_string(end_unix_ns) +
                                   " is not after start_unix_ns " + std::to_string(start_unix_ns) +
                                   " (both 0 for the whole session)");
  }
  return Status::Ok();
}

bool SpanOverlaps(const Span& span, const SpanTimeRange& range) {
  if (span.start_ns >= range.end_ns) return false;
  if (span.start_ns >= range.start_ns) return true;
  return KnownDuration(span).has_value() && SpanEndNs(span) > range.start_ns;
}

Result<uint64_t> LongestDuration(SpanReader& reader, SessionId session) {
  Result<std::vector<OpAggregateRow>> rows = reader.Aggregates(session);
  if (!rows.ok()) return rows.status();
  uint64_t longest = 0;
  for (const OpAggregateRow& row : rows.value()) longest = std::max(longest, row.totals.max_ns);
  return longest;
}

Status ForEachSpanOverlapping(SpanReader& reader, SessionId session, const SpanTimeRange& range,
                              uint64_t longest, const SpanReader::SpanVisitor& visit,
                              span_page::ColumnSet columns) {
  return reader.ForEachSpanPage(
      session, ClampToNs(static_cast<__int128>(range.start_ns) - longest), range.end_ns - 1,
      [&](std::span<const Span> spans) {
        for (const Span& span : spans) {
          if (SpanOverlaps(span, range) && !visit(span)) return false;
        }
        return true;
      },
      columns | kTimeRangeColumns);
}

}  // namespace optrace::daemon
