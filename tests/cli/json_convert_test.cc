#include "json_convert.h"

#include <gtest/gtest.h>

namespace optrace::cli {
namespace {

TEST(JsonConvertTest, Session_SnakeCaseKeysAndWords) {
  v1::Session s;
  s.set_id(12);
  s.set_label("train");
  s.set_pid(4242);
  s.set_state(v1::SESSION_STATE_CRASHED);
  s.set_start_unix_ns(1'714'564'800'000'000'000);
  s.mutable_drops()->set_ring_full(3);
  s.mutable_drops()->set_total(3);
  s.mutable_drops()->set_names_capped(5);
  s.set_live_level(v1::LEVEL_TRACE);
  s.set_spans_trimmed(7);
  s.set_instants_trimmed(8);
  s.set_trimmed_before_unix_ns(9);
  const nlohmann::json j = ToJson(s);
  EXPECT_EQ(j["id"], 12);
  EXPECT_EQ(j["label"], "train");
  EXPECT_EQ(j["pid"], 4242);
  EXPECT_EQ(j["state"], "crashed");
  EXPECT_EQ(j["start_unix_ns"], 1'714'564'800'000'000'000);
  EXPECT_EQ(j["end_unix_ns"], 0);  // defaults are written too
  EXPECT_EQ(j["drops"]["ring_full"], 3);
  EXPECT_EQ(j["drops"]["total"], 3);
  EXPECT_EQ(j["drops"]["names_capped"], 5);
  EXPECT_EQ(j["live_level"], "trace");
  EXPECT_EQ(j["spans_trimmed"], 7);
  EXPECT_EQ(j["instants_trimmed"], 8);
  EXPECT_EQ(j["trimmed_before_unix_ns"], 9);
}

TEST(JsonConvertTest, Span_DeviceAndStatusAsWords) {
  v1::Span span;
  span.set_name("matmul");
  span.set_tag("matmul_128x256x512_f32");
  span.mutable_device()->set_target(v1::TARGET_GPU);
  span.mutable_device()->set_ordinal(1);
  span.mutable_device()->set_stream(7);
  span.set_duration_ns(1234);
  span.set_status(v1::SPAN_STATUS_COMPLETE_WITHOUT_LAUNCH);
  const nlohmann::json j = ToJson(span);
  EXPECT_EQ(j["device"]["name"], "gpu:1");
  EXPECT_EQ(j["device"]["target"], "gpu");
  EXPECT_EQ(j["device"]["stream"], 7);
  EXPECT_EQ(j["duration_ns"], 1234);
  EXPECT_EQ(j["status"], "complete-without-launch");
}

TEST(JsonConvertTest, Issue16_Durations_ZeroIsANumberUnknownIsNull) {
  v1::Span span;
  span.set_status(v1::SPAN_STATUS_OK);
  span.set_duration_ns(0);
  span.set_self_ns(0);
  span.set_device_duration_ns(0);
  nlohmann::json j = ToJson(span);
  EXPECT_EQ(j["duration_ns"], 0);
  EXPECT_EQ(j["self_ns"], 0);
  EXPECT_EQ(j["device_duration_ns"], 0);
  span.clear_duration_ns();
  span.clear_self_ns();
  span.clear_device_duration_ns();
  j = ToJson(span);
  EXPECT_TRUE(j["duration_ns"].is_null()) << j.dump();
  EXPECT_TRUE(j["self_ns"].is_null()) << j.dump();
  EXPECT_TRUE(j["device_duration_ns"].is_null()) << j.dump();

  v1::LiveEvent event;
  event.set_kind(v1::LiveEvent::KIND_COMPLETE);
  event.set_duration_ns(0);
  j = ToJson(event);
  EXPECT_EQ(j["duration_ns"], 0);
  EXPECT_TRUE(j["device_duration_ns"].is_null()) << j.dump();
}

TEST(JsonConvertTest, TailItems_TypedObjects) {
  v1::TailResponse event;
  event.mutable_event()->set_kind(v1::LiveEvent::KIND_COMPLETE);
  event.mutable_event()->set_op_id(40028);
  event.mutable_event()->set_duration_ns(99);
  nlohmann::json j = ToJson(event);
  EXPECT_EQ(j["type"], "event");
  EXPECT_EQ(j["kind"], "complete");
  EXPECT_EQ(j["op_id"], 40028);
  EXPECT_EQ(j["duration_ns"], 99);

  v1::TailResponse lag;
  lag.mutable_lag()->set_skipped(5);
  j = ToJson(lag);
  EXPECT_EQ(j["type"], "lag");
  EXPECT_EQ(j["skipped"], 5);

  v1::TailResponse span;
  span.mutable_span()->set_op_id(3);
  EXPECT_EQ(ToJson(span)["type"], "span");
  EXPECT_EQ(ToJson(v1::TailResponse())["type"], "unknown");
}

TEST(JsonConvertTest, Stats_RowsInOrderWithTotals) {
  v1::GetStatsResponse stats;
  stats.set_total_ns(300);
  stats.set_spans(3);
  v1::OpStats* row = stats.add_rows();
  row->set_key("matmul");
  row->set_count(2);
  row->set_p99_ns(200);
  row->set_share(0.75);
  stats.add_rows()->set_key("add");
  const nlohmann::json j = ToJson(stats);
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][0]["key"], "matmul");
  EXPECT_EQ(j["rows"][0]["p99_ns"], 200);
  EXPECT_DOUBLE_EQ(j["rows"][0]["share"].get<double>(), 0.75);
  EXPECT_EQ(j["rows"][1]["key"], "add");
  EXPECT_EQ(j["total_ns"], 300);
  EXPECT_EQ(j["spans"], 3);
  EXPECT_EQ(j["source"], "-");
  stats.set_source(v1::STATS_SOURCE_AGGREGATES);
  stats.set_percentile_relative_error(0.0078125);
  stats.set_percentile_spans(2);
  stats.set_groups_folded(4);
  const nlohmann::json from_aggregates = ToJson(stats);
  EXPECT_EQ(from_aggregates["source"], "aggregates");
  EXPECT_EQ(from_aggregates["percentiles_exact"], false);
  EXPECT_DOUBLE_EQ(from_aggregates["percentile_relative_error"].get<double>(), 0.0078125);
  EXPECT_EQ(from_aggregates["percentile_spans"], 2);
  EXPECT_EQ(from_aggregates["groups_folded"], 4);
  EXPECT_FALSE(from_aggregates.contains("threads")) << "not asked for";
}

TEST(JsonConvertTest, StatsWithThreads_EachThreadsBusyShare) {
  v1::GetStatsResponse stats;
  v1::ThreadBusy* thread = stats.add_threads();
  thread->set_tid(42);
  thread->set_ops(3);
  thread->set_busy_ns(75);
  thread->set_first_start_unix_ns(1000);
  thread->set_last_end_unix_ns(1100);
  thread->set_wall_ns(100);
  thread->set_busy_share(0.75);
  stats.set_threads_left_out(2);
  const nlohmann::json j = ToJson(stats, true);
  ASSERT_EQ(j["threads"].size(), 1u);
  EXPECT_EQ(j["threads"][0]["tid"], 42);
  EXPECT_EQ(j["threads"][0]["ops"], 3);
  EXPECT_EQ(j["threads"][0]["busy_ns"], 75);
  EXPECT_EQ(j["threads"][0]["first_start_unix_ns"], 1000);
  EXPECT_EQ(j["threads"][0]["last_end_unix_ns"], 1100);
  EXPECT_EQ(j["threads"][0]["wall_ns"], 100);
  EXPECT_DOUBLE_EQ(j["threads"][0]["busy_share"].get<double>(), 0.75);
  EXPECT_EQ(j["threads_left_out"], 2);
  EXPECT_EQ(ToJson(v1::GetStatsResponse(), true)["threads"], nlohmann::json::array());
}

TEST(JsonConvertTest, Comparison_SignedChangeAndOnlyIn) {
  v1::Comparison row;
  row.set_key("rms_norm");
  row.set_total_change_ns(-500);
  row.set_only_in_a(true);
  const nlohmann::json j = ToJson(row);
  EXPECT_EQ(j["total_change_ns"], -500);
  EXPECT_EQ(j["only_in_a"], true);
  EXPECT_EQ(j["only_in_b"], false);
}

TEST(JsonConvertTest, Steps_TrimmedAndFoldedCarried) {
  v1::GetStepsResponse steps;
  steps.set_steps_total(2);
  steps.set_steps_folded(7);
  steps.add_steps()->set_trimmed(true);
  steps.add_steps()->set_ops(3);
  const nlohmann::json j = ToJson(steps);
  EXPECT_EQ(j["steps_folded"], 7);
  EXPECT_EQ(j["steps"][0]["trimmed"], true);
  EXPECT_EQ(j["steps"][1]["trimmed"], false);
  EXPECT_EQ(j["steps"][1]["ops"], 3);
}

TEST(JsonConvertTest, Levels_UnsetIsDash) {
  v1::GetLevelResponse levels;
  levels.set_default_level(v1::LEVEL_INFO);
  v1::ProducerLevel* p = levels.add_producers();
  p->set_pid(7);
  p->set_live(v1::LEVEL_TRACE);
  const nlohmann::json j = ToJson(levels);
  EXPECT_EQ(j["default_level"], "info");
  EXPECT_EQ(j["producers"][0]["live"], "trace");
  EXPECT_EQ(j["producers"][0]["override"], "-");
  EXPECT_TRUE(j["rules"].is_array());
}

TEST(JsonConvertTest, Status_CountersAsObject) {
  v1::GetStatusResponse status;
  status.set_version("0.1.0");
  (*status.mutable_counters())["batches_shed"] = 2;
  const nlohmann::json j = ToJson(status);
  EXPECT_EQ(j["version"], "0.1.0");
  EXPECT_EQ(j["counters"]["batches_shed"], 2);
  EXPECT_EQ(j["drops"]["total"], 0);
}

}  // namespace
}  // namespace optrace::cli
