// The columnar encoding of a page of spans (span_pages.data).
//
// Layout, version 2 (integers are LEB128 varints):
//   format version (1 byte, kFormatVersion)
//   span count (at most kMaxSpansPerPage)
//   then one column after another, in this order: start_ns, duration_ns,
//   device_ns, op_id, parent_op_id, name, tag, srcloc, launch_tid,
//   complete_tid, stream, device, target, status, has_device_ns. Each
//   column is a mode byte and then either
//     kConstant: one value, that of every span (a column that never
//                changes, such as the stream of a one-stream session), or
//     kPerValue: `count` values in span order.
// In kPerValue columns, start_ns, op_id, parent_op_id, launch_tid and
// complete_tid are stored as the zigzag-coded difference from the previous
// span's value (the first from 0), computed with 64-bit wrap-around so that
// every value, extremes included, round-trips exactly; the other columns
// hold the values themselves. Spans in start order with increasing op ids
// cost 12 to 18 bytes each, depending on how much their durations vary.
// Version 1 pages (written before device durations carried their presence)
// lack the has_device_ns column; they decode with has_device_ns set where
// device_ns is not 0, which is what 0 meant then.
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

inline constexpr uint8_t kFormatVersion = 2;
// The most spans one page holds: this bounds what Decode allocates.
inline constexpr size_t kMaxSpansPerPage = 65536;

// Encodes `spans` in the given order. REQUIRES: spans.size() <=
// kMaxSpansPerPage. Never fails. Thread rules: pure.
std::string Encode(std::span<const Span> spans);

// Decodes a page. `bytes_untrusted` may be anything (a corrupt file, a
// hostile writer): every read is bounds-checked, every value range-checked
// against its field, and memory use is bounded by kMaxSpansPerPage spans.
// Errors (kInvalidArgument) name the problem and where it is: an unknown
// format version (1 and kFormatVersion are known), a count above
// kMaxSpansPerPage, an unknown column mode, a truncated or over-long
// varint, a value out of its field's range, or bytes left over after the
// last column. Thread rules: pure.
Result<std::vector<Span>> Decode(std::string_view bytes_untrusted);

}  // namespace optrace::daemon::span_page

#endif  // OPTRACE_DAEMON_STORAGE_SPAN_PAGE_CODEC_H_
