// The columnar encoding of a page of spans (span_pages.data).
//
// Layout, version 4 (integers are LEB128 varints):
//   format version (1 byte, kFormatVersion)
//   span count (at most kMaxSpansPerPage)
//   the byte length of each column, one varint per column in layout order
//   then one column after another, in the order of OPTRACE_SPAN_PAGE_COLUMNS
//   below (those of the page's version). Each column is a mode byte and
//   then either
//     kConstant: one value, that of every span (a column that never
//                changes, such as the stream of a one-stream session), or
//     kPerValue: `count` values in span order.
// The lengths let a reader decode only the columns it needs and skip the
// others (Decode's `columns`). In kPerValue columns, start_ns, op_id,
// parent_op_id, launch_tid and complete_tid (the kDelta columns) are stored
// as the zigzag-coded difference from the previous span's value (the first from 0), computed
// with 64-bit wrap-around so that every value, extremes included,
// round-trips exactly; the other columns hold the values themselves. Spans
// in start order with increasing op ids cost 12 to 18 bytes each,
// depending on how much their durations vary; children_ns is 0 for spans
// without children, a constant column where no span nests.
// Older pages are still read: version 3 is version 4 without the
// children_ns column (its spans decode with 0: self time equal to their
// duration, as no children were subtracted then); version 2, read whole,
// is version 3 without the
// column lengths; version 1 (written before device durations carried their
// presence) also lacks the has_device_ns column, and decodes with
// has_device_ns set where device_ns is not 0, which is what 0 meant then.
#ifndef OPTRACE_DAEMON_STORAGE_SPAN_PAGE_CODEC_H_
#define OPTRACE_DAEMON_STORAGE_SPAN_PAGE_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "model/span.h"

namespace optrace::daemon::span_page {

// How a column's per-span values are written.
enum class Coding {
  kPlain,  // the value itself
  kDelta,  // zigzag(value - previous value), 64-bit wrap-around
};

// The columns of a page in layout order, each written down once:
// X(Column enumerator, Span member, Coding, the first format version that
// holds the column). Encode, Decode, Column and kFormatVersion all follow
// this list: a new span field stored in pages is one row here, with the
// next format version (older pages still decode, without it).
#define OPTRACE_SPAN_PAGE_COLUMNS(X)        \
  X(kStartNs, start_ns, kDelta, 1)          \
  X(kDurationNs, duration_ns, kPlain, 1)    \
  X(kDeviceNs, device_ns, kPlain, 1)        \
  X(kOpId, op_id, kDelta, 1)                \
  X(kParentOpId, parent_op_id, kDelta, 1)   \
  X(kName, name, kPlain, 1)                 \
  X(kTag, tag, kPlain, 1)                   \
  X(kSrcloc, srcloc, kPlain, 1)             \
  X(kLaunchTid, launch_tid, kDelta, 1)      \
  X(kCompleteTid, complete_tid, kDelta, 1)  \
  X(kStream, stream, kPlain, 1)             \
  X(kDevice, device, kPlain, 1)             \
  X(kTarget, target, kPlain, 1)             \
  X(kStatus, status, kPlain, 1)             \
  X(kHasDeviceNs, has_device_ns, kPlain, 2) \
  X(kChildrenNs, children_ns, kPlain, 4)

// Each column's place in the layout.
enum ColumnIndex : uint32_t {
#define OPTRACE_SPAN_PAGE_COLUMN_INDEX(column, member, coding, since) column##Index,
  OPTRACE_SPAN_PAGE_COLUMNS(OPTRACE_SPAN_PAGE_COLUMN_INDEX)
#undef OPTRACE_SPAN_PAGE_COLUMN_INDEX
      kColumnCount
};

// The columns of a page, one bit each, in layout order: a ColumnSet says
// which a reader needs.
enum Column : uint32_t {
#define OPTRACE_SPAN_PAGE_COLUMN_BIT(column, member, coding, since) column = 1u << column##Index,
  OPTRACE_SPAN_PAGE_COLUMNS(OPTRACE_SPAN_PAGE_COLUMN_BIT)
#undef OPTRACE_SPAN_PAGE_COLUMN_BIT
};
using ColumnSet = uint32_t;
inline constexpr ColumnSet kAllColumns = (1u << kColumnCount) - 1;

// The first format version whose pages hold their column lengths.
inline constexpr uint8_t kFormatVersionWithColumnLengths = 3;

// The version Encode writes: the newest column's, and at least the one
// with column lengths.
inline constexpr uint8_t kFormatVersion = [] {
  uint8_t newest = kFormatVersionWithColumnLengths;
#define OPTRACE_SPAN_PAGE_COLUMN_SINCE(column, member, coding, since) \
  newest = newest < (since) ? (since) : newest;
  OPTRACE_SPAN_PAGE_COLUMNS(OPTRACE_SPAN_PAGE_COLUMN_SINCE)
#undef OPTRACE_SPAN_PAGE_COLUMN_SINCE
  return newest;
}();

// The most spans one page holds: this bounds what Decode allocates.
inline constexpr size_t kMaxSpansPerPage = 65536;

// Encodes `spans` in the given order. REQUIRES: spans.size() <=
// kMaxSpansPerPage. Never fails. Thread rules: pure.
std::string Encode(std::span<const Span> spans);

// Decodes a page: the fields of `columns` (every column of a version 1 or
// 2 page, which cannot be skipped); the others keep Span's defaults, and
// their bytes are not read. `bytes_untrusted` may be anything (a corrupt
// file, a hostile writer): every read is bounds-checked, every value
// range-checked against its field, and memory use is bounded by
// kMaxSpansPerPage spans. Errors (kInvalidArgument) name the problem and
// where it is: an unknown format version (1 to kFormatVersion are known),
// a count above kMaxSpansPerPage, column lengths that do not add up to the
// page, an unknown column mode, a truncated or over-long varint, a value
// out of its field's range, or bytes left over after a column (after the
// last, for older pages). Thread rules: pure.
Result<std::vector<Span>> Decode(std::string_view bytes_untrusted, ColumnSet columns = kAllColumns);

// Decode into `*spans`, resized to the page's span count, for a reader that
// reuses one vector page after page: the fields of `columns` are set (to
// Span's defaults where the page's version lacks the column), the others
// keep what they held (Span's defaults in new elements). After an
// error `*spans` holds no meaningful values. Thread rules: pure.
Status DecodeInto(std::string_view bytes_untrusted, ColumnSet columns, std::vector<Span>* spans);

}  // namespace optrace::daemon::span_page

#endif  // OPTRACE_DAEMON_STORAGE_SPAN_PAGE_CODEC_H_
