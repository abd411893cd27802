// The SQL of fleet queries: conditions from validated requests, values
// always literals.
#include "fleet/fleet_sql.h"

#include <gtest/gtest.h>

namespace optrace::daemon {
namespace {

CheckedOpFilter Check(const v1::OpFilter& filter) {
  Result<CheckedOpFilter> checked = CheckOpFilter(filter, "filter");
  EXPECT_TRUE(checked.ok()) << checked.status().message();
  return std::move(checked).value();
}

TEST(FleetSqlTest, Conditions_Empty_One) {
  EXPECT_EQ(OpFilterCondition(Check(v1::OpFilter())), "1");
  EXPECT_EQ(FleetFilterCondition(v1::FleetFilter()), "1");
}

TEST(FleetSqlTest, Conditions_EveryField_AndedTyped) {
  v1::OpFilter filter;
  filter.set_name_pattern("^matmul$");
  filter.set_tag_pattern("f32");
  filter.set_target(v1::TARGET_GPU);
  filter.set_has_device(true);
  filter.set_device(3);
  filter.set_status(v1::SPAN_STATUS_OK);
  filter.set_min_duration_ns(1000);
  filter.set_start_min_unix_ns(10);
  filter.set_start_max_unix_ns(20);
  EXPECT_EQ(OpFilterCondition(Check(filter)),
            "(match(name, '^matmul$')) AND (match(tag, 'f32')) AND (CAST(target AS Int8) = 2) "
            "AND (device = 3) AND (CAST(status AS Int8) = 1) AND (duration_ns >= "
            "toUInt64(1000)) AND (start_unix_ns >= toInt64(10)) AND (start_unix_ns <= "
            "toInt64(20))");
  v1::FleetFilter fleet;
  fleet.set_node("gpu-7");
  fleet.set_label("fused");
  EXPECT_EQ(FleetFilterCondition(fleet), "(node = 'gpu-7') AND (label = 'fused')");
}

TEST(FleetSqlTest, Malicious_QuotesInNodeAndPattern_StayLiterals) {
  v1::FleetFilter fleet;
  fleet.set_node("x') OR (1=1");
  EXPECT_EQ(FleetFilterCondition(fleet), "(node = 'x\\') OR (1=1')");
  v1::OpFilter filter;
  filter.set_name_pattern("a'\\d");
  EXPECT_EQ(OpFilterCondition(Check(filter)), "(match(name, 'a\\'\\\\d'))");
}

TEST(FleetSqlTest, GroupKey_Target_TargetColonOrdinalLikeLocally) {
  EXPECT_EQ(GroupKeyExpression(v1::GROUP_BY_TARGET),
            "concat(CAST(target AS String), ':', toString(device))");
  EXPECT_EQ(GroupKeyExpression(v1::GROUP_BY_NAME), "CAST(name AS String)");
}

TEST(FleetSqlTest, StatsSql_PerNode_GroupsByNodeAndUsesNearestRank) {
  const std::string sql = FleetStatsSql("db.t", "1", v1::GROUP_BY_TAG, true);
  EXPECT_NE(sql.find("GROUP BY key, node"), std::string::npos) << sql;
  EXPECT_NE(sql.find("d[intDiv(99 * ok_count + 99, 100)]"), std::string::npos) << sql;
  EXPECT_NE(sql.find("sumIf(self_ns, status = 'ok') AS self_total_ns"), std::string::npos) << sql;
  EXPECT_NE(sql.find("FROM db.t WHERE 1"), std::string::npos) << sql;
}

TEST(FleetSqlTest, SpansSql_Cursor_StrictlyAfterItsKey) {
  const std::string sql = FleetSpansSql("db.t", "1", FleetCursor{5, "n'1", 7, 8, 9}, 101);
  EXPECT_NE(sql.find("(start_unix_ns, CAST(node AS String), store_id, page_id, page_index) > "
                     "(toInt64(5), 'n\\'1', toUInt64(7), toUInt64(8), toUInt32(9))"),
            std::string::npos)
      << sql;
  EXPECT_NE(sql.find("ORDER BY start_unix_ns, node, store_id, page_id, page_index LIMIT 101"),
            std::string::npos)
      << sql;
}

}  // namespace
}  // namespace optrace::daemon
