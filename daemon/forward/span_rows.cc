#include "forward/span_rows.h"

#include <iterator>
#include <type_traits>
#include <vector>

#include "model/span.h"

namespace optrace::daemon {
namespace {

// The columns in front of the span's fields: where the row comes from and
// its session's metadata.
constexpr std::string_view kPageColumns[] = {
    "node",  "store_id", "page_id", "page_index", "session_id",
    "label", "pid",      "uid",     "executable", "session_start_unix_ns",
};

std::vector<std::string_view> MakeColumns() {
  std::vector<std::string_view> columns(std::begin(kPageColumns), std::end(kPageColumns));
  VisitSpanFields(Span{}, [&](std::string_view name, const auto&) { columns.push_back(name); });
  return columns;
}

}  // namespace

std::span<const std::string_view> SpanColumns() {
  static const std::vector<std::string_view> kColumns = MakeColumns();
  return kColumns;
}

std::string SpanInsertStatement(std::string_view table) {
  std::string sql = "INSERT INTO " + std::string(table) + " (";
  bool first = true;
  for (const std::string_view column : SpanColumns()) {
    if (!first) sql += ", ";
    first = false;
    sql += column;
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
  VisitSpanFields(span, [&](std::string_view, const auto& value) {
    using Value = std::decay_t<decltype(value)>;
    if constexpr (std::is_same_v<Value, DictText>) {
      out->String(strings(value.id));
    } else if constexpr (std::is_same_v<Value, TargetByte>) {
      out->Int<int8_t>(static_cast<int8_t>(TargetToProto(value.kind)));
    } else if constexpr (std::is_same_v<Value, SpanStatus>) {
      out->Int<int8_t>(static_cast<int8_t>(StatusToProto(value)));
    } else if constexpr (std::is_same_v<Value, MeasuredNs>) {
      out->Int<uint64_t>(value.ns);  // as stored: the table has no NULL
    } else {
      out->Int<Value>(value);  // the field's own width
    }
  });
}

}  // namespace optrace::daemon
