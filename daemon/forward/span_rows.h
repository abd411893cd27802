// The rows the forwarder sends: one per span, with the node, the store,
// the session's metadata and the strings resolved, in RowBinary, in the
// column order of SpanInsertStatement (the columns of
// deploy/clickhouse/spans_table.sql).
#ifndef OPTRACE_DAEMON_FORWARD_SPAN_ROWS_H_
#define OPTRACE_DAEMON_FORWARD_SPAN_ROWS_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "forward/row_binary.h"
#include "model/session_record.h"
#include "model/span.h"
#include "wire/proto_convert.h"

namespace optrace::daemon {

// What the rows of one span page share. Borrows `node` and `session`,
// which must outlive the context.
struct SpanPageContext {
  std::string_view node;
  uint64_t store_id = 0;
  uint64_t page_id = 0;
  // The page's session; nullptr when its record is gone (retention raced
  // the read): its fields are then sent empty, with session_id kept.
  const SessionRecord* session = nullptr;
  SessionId session_id = 0;
};

// The columns, in the order AppendSpanRow writes them: the page's and its
// session's, then the span's fields (VisitSpanFields, model/span.h).
std::span<const std::string_view> SpanColumns();

// "INSERT INTO `table` (node, store_id, ...) FORMAT RowBinary".
std::string SpanInsertStatement(std::string_view table);

// Appends the row of `span`, the `page_index`th of its page, resolving its
// name, tag and source location with `strings`. Target and status are sent
// as the Enum8 values of the table (the proto's numbers; an unknown target
// is 'none'). Thread rules: pure but for `strings`.
void AppendSpanRow(const SpanPageContext& page, uint32_t page_index, const Span& span,
                   const StringLookup& strings, RowBinaryWriter* out);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_FORWARD_SPAN_ROWS_H_
