#include "forward/span_rows.h"

#include <array>

namespace optrace::daemon {
namespace {

constexpr std::array<std::string_view, 24> kColumns = {
    "node",
    "store_id",
    "page_id",
    "page_index",
    "session_id",
    "label",
    "pid",
    "uid",
    "executable",
    "session_start_unix_ns",
    "op_id",
    "parent_op_id",
    "name",
    "tag",
    "source_location",
    "target",
    "device",
    "stream",
    "start_unix_ns",
    "duration_ns",
    "device_duration_ns",
    "launch_thread",
    "complete_thread",
    "status",
};

}  // namespace

std::span<const std::string_view> SpanColumns() { return kColumns; }

std::string SpanInsertStatement(std::string_view table) {
  std::string sql = "INSERT INTO " + std::string(table) + " (";
  for (size_t i = 0; i < kColumns.size(); ++i) {
    if (i > 0) sql += ", ";
    sql += kColumns[i];
  }
  return sql + ") FORMAT RowBinary";
}

void AppendSpanRow(const SpanPageContext& page, uint32_t page_index, const Span& span,
                   const StringLookup& strings, RowBinaryWriter* out) {
  static const SessionRecord kNoSession;
  const SessionRecord& session = page.session != nullptr ? *page.session : kNoSession;
  out->String(page.node);
  out->Int<uint64_t>(page.store_id);
  out->Int<uint64_t>(page.page_id);
  out->Int<uint32_t>(page_index);
  out->Int<uint64_t>(page.session_id);
  out->String(session.label);
  out->Int<uint32_t>(session.pid);
  out->Int<uint32_t>(session.uid);
  out->String(session.executable);
  out->Int<int64_t>(session.start_ns);
  out->Int<uint64_t>(span.op_id);
  out->Int<uint64_t>(span.parent_op_id);
  out->String(strings(span.name));
  out->String(strings(span.tag));
  out->String(strings(span.srcloc));
  out->Int<int8_t>(static_cast<int8_t>(TargetToProto(span.target)));
  out->Int<uint16_t>(span.device);
  out->Int<uint32_t>(span.stream);
  out->Int<int64_t>(span.start_ns);
  out->Int<uint64_t>(span.duration_ns);
  out->Int<uint64_t>(span.device_ns);
  out->Int<uint32_t>(span.launch_tid);
  out->Int<uint32_t>(span.complete_tid);
  out->Int<int8_t>(static_cast<int8_t>(StatusToProto(span.status)));
}

}  // namespace optrace::daemon
