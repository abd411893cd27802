// The forwarder's rows: columns in the INSERT's order, strings resolved,
// enums as the table's values.
#include "forward/span_rows.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "forward/row_binary.h"
#include "optrace/abi.h"

namespace optrace::daemon {
namespace {

TEST(SpanRowsTest, InsertStatement_NamesEveryColumnInOrder) {
  const std::string sql = SpanInsertStatement("db.t_local");
  EXPECT_EQ(sql.rfind("INSERT INTO db.t_local (node, store_id, page_id, page_index, ", 0), 0u)
      << sql;
  EXPECT_NE(sql.find("complete_thread, status, self_ns) FORMAT RowBinary"), std::string::npos)
      << sql;
}

// The whole column list, as deploy/clickhouse/spans_table.sql orders it:
// the page's columns and then the span's fields (model/span.h).
TEST(SpanRowsTest, InsertStatement_PageColumnsThenSpanFields_ExactText) {
  EXPECT_EQ(SpanInsertStatement("t"),
            "INSERT INTO t (node, store_id, page_id, page_index, session_id, label, pid, uid, "
            "executable, session_start_unix_ns, op_id, parent_op_id, name, tag, "
            "source_location, target, device, stream, start_unix_ns, duration_ns, "
            "device_duration_ns, launch_thread, complete_thread, status, self_ns) FORMAT "
            "RowBinary");
  EXPECT_EQ(SpanColumns().size(), 25u);
}

TEST(SpanRowsTest, AppendSpanRow_EveryField_ReadBackInColumnOrder) {
  const std::map<StringId, std::string> strings = {
      {1, "matmul"}, {2, "matmul_8x8_f32"}, {3, "gemm.cc:12"}};
  static const std::string kEmpty;
  const StringLookup lookup = [&](StringId id) -> const std::string& {
    const auto it = strings.find(id);
    return it == strings.end() ? kEmpty : it->second;
  };
  SessionRecord session;
  session.id = 9;
  session.label = "train";
  session.pid = 4242;
  session.uid = 1000;
  session.executable = "/usr/bin/python3";
  session.start_ns = 1'700'000'000'000'000'000;
  Span span;
  span.op_id = 77;
  span.parent_op_id = 76;
  span.start_ns = 1'700'000'000'000'000'123;
  span.duration_ns = 5000;
  span.device_ns = 4000;
  span.name = 1;
  span.tag = 2;
  span.srcloc = 3;
  span.launch_tid = 11;
  span.complete_tid = 12;
  span.stream = 7;
  span.device = 3;
  span.target = static_cast<uint8_t>(abi::TargetKind::kGpu);
  span.status = SpanStatus::kIncomplete;
  RowBinaryWriter writer;
  AppendSpanRow({"gpu-node-1", 555, 31, &session, 9}, 4, span, lookup, &writer);

  RowBinaryReader r(writer.bytes());
  EXPECT_EQ(r.String(), "gpu-node-1");
  EXPECT_EQ(r.Int<uint64_t>(), 555u);
  EXPECT_EQ(r.Int<uint64_t>(), 31u);
  EXPECT_EQ(r.Int<uint32_t>(), 4u);
  EXPECT_EQ(r.Int<uint64_t>(), 9u);
  EXPECT_EQ(r.String(), "train");
  EXPECT_EQ(r.Int<uint32_t>(), 4242u);
  EXPECT_EQ(r.Int<uint32_t>(), 1000u);
  EXPECT_EQ(r.String(), "/usr/bin/python3");
  EXPECT_EQ(r.Int<int64_t>(), session.start_ns);
  EXPECT_EQ(r.Int<uint64_t>(), 77u);
  EXPECT_EQ(r.Int<uint64_t>(), 76u);
  EXPECT_EQ(r.String(), "matmul");
  EXPECT_EQ(r.String(), "matmul_8x8_f32");
  EXPECT_EQ(r.String(), "gemm.cc:12");
  EXPECT_EQ(r.Int<int8_t>(), 2) << "'gpu'";
  EXPECT_EQ(r.Int<uint16_t>(), 3u);
  EXPECT_EQ(r.Int<uint32_t>(), 7u);
  EXPECT_EQ(r.Int<int64_t>(), span.start_ns);
  EXPECT_EQ(r.Int<uint64_t>(), 5000u);
  EXPECT_EQ(r.Int<uint64_t>(), 4000u);
  EXPECT_EQ(r.Int<uint32_t>(), 11u);
  EXPECT_EQ(r.Int<uint32_t>(), 12u);
  EXPECT_EQ(r.Int<int8_t>(), 2) << "'incomplete'";
  EXPECT_EQ(r.Int<uint64_t>(), 0u) << "no self time without a duration";
  EXPECT_TRUE(r.AtEnd());
  EXPECT_TRUE(r.status().ok()) << r.status().message();

  // An OK span's self time: its duration less its children's.
  span.status = SpanStatus::kOk;
  span.children_ns = 1500;
  RowBinaryWriter ok_writer;
  AppendSpanRow({"gpu-node-1", 555, 31, &session, 9}, 5, span, lookup, &ok_writer);
  const std::string& row = ok_writer.bytes();
  uint64_t self_ns = 0;
  ASSERT_GE(row.size(), sizeof self_ns);
  std::memcpy(&self_ns, row.data() + row.size() - sizeof self_ns, sizeof self_ns);  // little-endian
  EXPECT_EQ(self_ns, 3500u);
}

TEST(SpanRowsTest, Malicious_UnknownTargetAndGoneSession_SentAsNoneAndEmpty) {
  static const std::string kEmpty;
  const StringLookup lookup = [&](StringId) -> const std::string& { return kEmpty; };
  Span span;
  span.target = 200;
  RowBinaryWriter writer;
  AppendSpanRow({"n", 1, 1, nullptr, 5}, 0, span, lookup, &writer);
  RowBinaryReader r(writer.bytes());
  r.String();
  r.Int<uint64_t>();
  r.Int<uint64_t>();
  r.Int<uint32_t>();
  EXPECT_EQ(r.Int<uint64_t>(), 5u) << "the session id is kept";
  EXPECT_EQ(r.String(), "") << "no label";
  for (int i = 0; i < 2; ++i) r.Int<uint32_t>();
  r.String();
  r.Int<int64_t>();
  r.Int<uint64_t>();
  r.Int<uint64_t>();
  for (int i = 0; i < 3; ++i) r.String();
  EXPECT_EQ(r.Int<int8_t>(), 0) << "'none': the table's Enum8 has no value 200";
}

}  // namespace
}  // namespace optrace::daemon
