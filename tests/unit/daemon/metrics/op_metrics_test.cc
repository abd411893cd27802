#include "metrics/op_metrics.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "store_test_data.h"

namespace optrace::daemon {
namespace {

using testing::MakeSession;
using testing::MakeSpan;

// A batch of session `session`: the strings 1..names named "op<i>", and
// `per_name` ok spans of each name lasting `duration_ns`.
StoreBatch BatchOfNames(SessionId session, uint32_t first_name, uint32_t names, uint32_t per_name,
                        uint64_t duration_ns = 5000) {
  StoreBatch batch;
  SessionSpans spans{session, {}};
  for (uint32_t n = first_name; n < first_name + names; ++n) {
    batch.new_strings.emplace_back(n, "op" + std::to_string(n));
    for (uint32_t i = 0; i < per_name; ++i) {
      spans.spans.push_back(MakeSpan(spans.spans.size() + 1, 1000, n, duration_ns));
    }
  }
  batch.spans.push_back(std::move(spans));
  return batch;
}

OpMetricsOptions WithLimits(uint64_t names_per_session, uint64_t series) {
  OpMetricsOptions options;
  options.limits = {names_per_session, series};
  return options;
}

// A batch that ends session `session`.
StoreBatch EndOf(SessionId session) {
  StoreBatch end;
  end.sessions.push_back(MakeSession(session, SessionState::kExited, 1, 2));
  return end;
}

std::map<std::string, uint64_t> SpansByName(const OpMetrics& metrics) {
  std::map<std::string, uint64_t> out;
  for (const OpSeries& s : metrics.Series()) out[s.name] += s.spans;
  return out;
}

TEST(OpMetricsTest, Spans_CountedPerNameWithHistogram) {
  OpMetrics metrics({});
  StoreBatch batch = BatchOfNames(1, 1, 2, 3, 3000);
  batch.spans[0].spans.push_back(MakeSpan(99, 1000, 1, 0, SpanStatus::kIncomplete));
  metrics.OnCommitted(batch);
  const auto series = metrics.Series();
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].name, "op1");
  EXPECT_EQ(series[0].spans, 4u);
  EXPECT_EQ(series[0].ok_spans, 3u);
  EXPECT_EQ(series[0].ok_sum_ns, 9000u);
  EXPECT_EQ(series[0].buckets[DurationBucketOf(3000)], 3u);
}

TEST(OpMetricsTest, SessionCap_RestInOther_NamedKeepSeries) {
  OpMetrics metrics(WithLimits(3, 100));
  metrics.OnCommitted(BatchOfNames(1, 1, 5, 2));
  auto by_name = SpansByName(metrics);
  EXPECT_EQ(by_name.size(), 4u);  // op1..op3 and other
  EXPECT_EQ(by_name["op1"], 2u);
  EXPECT_EQ(by_name["other"], 4u);
  // A later batch: op1 keeps its series, op4 stays in other.
  StoreBatch again = BatchOfNames(1, 1, 4, 1);
  again.new_strings.clear();
  metrics.OnCommitted(again);
  by_name = SpansByName(metrics);
  EXPECT_EQ(by_name["op1"], 3u);
  EXPECT_EQ(by_name["other"], 5u);
}

TEST(OpMetricsTest, GlobalCap_ManySessions_AtMostCapPlusOther) {
  OpMetrics metrics(WithLimits(50, 120));
  uint64_t total = 0;
  for (SessionId session = 1; session <= 10; ++session) {
    metrics.OnCommitted(BatchOfNames(session, static_cast<uint32_t>(session * 1000), 50, 1));
    total += 50;
  }
  const auto series = metrics.Series();
  EXPECT_EQ(series.size(), 121u);  // 120 named + other
  uint64_t counted = 0;
  for (const OpSeries& s : series) counted += s.spans;
  EXPECT_EQ(counted, total);  // exact in sum
}

TEST(OpMetricsTest, EndedSession_ForgetsItsBookkeeping_SeriesKept) {
  OpMetrics metrics(WithLimits(1, 100));
  metrics.OnCommitted(BatchOfNames(1, 1, 1, 1));
  metrics.OnCommitted(EndOf(1));
  // Session 2 (a new process) gets its own cap.
  StoreBatch next = BatchOfNames(2, 1, 1, 1);
  metrics.OnCommitted(next);
  EXPECT_EQ(SpansByName(metrics)["op1"], 2u);
}

TEST(OpMetricsTest, EndedSessions_SeriesDroppedAfterTheGraceOnly) {
  int64_t now = 1'000'000'000;
  OpMetricsOptions options = WithLimits(10, 3);
  options.ended_grace_ns = 60'000'000'000;
  options.now_ns = [&] { return now; };
  OpMetrics metrics(options);
  metrics.OnCommitted(BatchOfNames(1, 1, 2, 1));  // op1, op2: session 1
  metrics.OnCommitted(BatchOfNames(2, 2, 2, 1));  // op2, op3: session 2
  metrics.OnCommitted(EndOf(1));
  now += 59'000'000'000;
  MetricsText text;
  metrics.WriteTo(&text);
  EXPECT_EQ(SpansByName(metrics).size(), 3u) << "within the grace every series stays";
  now += 2'000'000'000;
  metrics.WriteTo(&text);
  auto by_name = SpansByName(metrics);
  EXPECT_FALSE(by_name.contains("op1")) << "only session 1 counted in op1, ended 61 s ago";
  EXPECT_EQ(by_name["op2"], 2u) << "session 2 still runs and counts in op2";
  EXPECT_EQ(by_name["op3"], 1u);
  // The dropped series made room under the global cap of 3: a new name
  // gets a series of its own, not "other".
  metrics.OnCommitted(BatchOfNames(3, 4, 1, 1));
  by_name = SpansByName(metrics);
  EXPECT_EQ(by_name["op4"], 1u);
  EXPECT_FALSE(by_name.contains("other"));
}

TEST(OpMetricsTest, SelfTime_SummedPerSeries) {
  OpMetrics metrics({});
  StoreBatch batch = BatchOfNames(1, 1, 1, 2, 5000);
  batch.spans[0].spans[0].children_ns = 3000;
  metrics.OnCommitted(batch);
  ASSERT_EQ(metrics.Series().size(), 1u);
  EXPECT_EQ(metrics.Series()[0].self_sum_ns, 2000u + 5000u);
  MetricsText text;
  metrics.WriteTo(&text);
  EXPECT_NE(text.text().find("optrace_op_self_seconds_total{name=\"op1\",target=\"gpu\"} 7e-06"),
            std::string::npos)
      << text.text();
}

TEST(OpMetricsTest, Labels_TagAndProcess_OneSeriesPerSessionAndTag) {
  auto labels = OpLabelSet::Parse(std::vector<std::string>{"name", "tag", "process", "pid"});
  ASSERT_TRUE(labels.ok()) << labels.status().message();
  OpMetricsOptions options;
  options.labels = labels.value();
  OpMetrics metrics(options);
  for (SessionId session : {1, 2}) {
    StoreBatch batch;
    SessionRecord record = MakeSession(session);
    record.executable = "/usr/bin/trainer";
    record.pid = static_cast<uint32_t>(100 + session);
    record.label = session == 2 ? "serving \"a\"" : "";  // else the executable's name
    batch.sessions.push_back(record);
    batch.new_strings = {{1, "matmul"}, {2, "matmul_8x8"}, {3, "matmul_16x16"}};
    Span small = MakeSpan(1, 1000, 1);
    small.tag = 2;
    Span big = MakeSpan(2, 2000, 1);
    big.tag = 3;
    batch.spans.push_back({session, {small, big, big}});
    metrics.OnCommitted(batch);
  }
  ASSERT_EQ(metrics.Series().size(), 4u);
  MetricsText text;
  metrics.WriteTo(&text);
  const std::string& t = text.text();
  EXPECT_NE(t.find("optrace_ops_total{name=\"matmul\",tag=\"matmul_16x16\",process=\"trainer\","
                   "pid=\"101\"} 2"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("optrace_ops_total{name=\"matmul\",tag=\"matmul_8x8\",process="
                   "\"serving \\\"a\\\"\",pid=\"102\"} 1"),
            std::string::npos)
      << t;
}

TEST(OpMetricsTest, Labels_PerSession_EndedSessionsSeriesGoAfterGrace) {
  int64_t now = 0;
  auto labels = OpLabelSet::Parse(std::vector<std::string>{"name", "session"});
  ASSERT_TRUE(labels.ok());
  OpMetricsOptions options;
  options.labels = labels.value();
  options.ended_grace_ns = 10;
  options.now_ns = [&] { return now; };
  OpMetrics metrics(options);
  metrics.OnCommitted(BatchOfNames(1, 1, 1, 1));
  metrics.OnCommitted(BatchOfNames(2, 1, 1, 1));
  EXPECT_EQ(metrics.Series().size(), 2u) << "one series per session";
  metrics.OnCommitted(EndOf(2));
  now = 100;
  MetricsText text;
  metrics.WriteTo(&text);
  const auto series = metrics.Series();
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].session, 1u);
}

TEST(OpLabelSetTest, Malicious_UnknownRepeatedOrNoName_Refused) {
  using Words = std::vector<std::string>;
  for (const Words& words :
       {Words{"name", "color"}, Words{"name", "tag", "tag"}, Words{"tag"}, Words{}}) {
    auto parsed = OpLabelSet::Parse(words);
    EXPECT_FALSE(parsed.ok());
  }
  EXPECT_NE(OpLabelSet::Parse(Words{"name", "color"}).status().message().find("\"color\""),
            std::string::npos);
  EXPECT_TRUE(OpLabelSet::Parse(Words{"pid", "name"}).ok());
}

TEST(OpMetricsTest, Malicious_LongNameWithQuotes_CutAndEscaped) {
  OpMetrics metrics({});
  StoreBatch batch;
  batch.new_strings.emplace_back(7, std::string(4096, '"') + "\n");
  batch.spans.push_back({1, {MakeSpan(1, 1000, 7)}});
  metrics.OnCommitted(batch);
  ASSERT_EQ(metrics.Series().size(), 1u);
  EXPECT_EQ(metrics.Series()[0].name.size(), kMaxLabelValueBytes);
  MetricsText text;
  metrics.WriteTo(&text);
  // 128 quotes, each escaped; the cut newline is gone; every line is a
  // comment or a sample of ours.
  const std::string escaped_name = [] {
    std::string out;
    for (size_t i = 0; i < kMaxLabelValueBytes; ++i) out += "\\\"";
    return out;
  }();
  EXPECT_NE(text.text().find("{name=\"" + escaped_name + "\",target="), std::string::npos);
  size_t line_start = 0;
  while (line_start < text.text().size()) {
    EXPECT_TRUE(text.text().compare(line_start, 1, "#") == 0 ||
                text.text().compare(line_start, 8, "optrace_") == 0)
        << text.text().substr(line_start, 40);
    line_start = text.text().find('\n', line_start) + 1;
  }
}

TEST(OpMetricsTest, ResumedStrings_NameIdsOfEarlierDaemon) {
  OpMetrics metrics({});
  const std::pair<StringId, std::string> stored[] = {{5, "resumed_op"}};
  metrics.OnResumedStrings(stored);
  StoreBatch batch;
  batch.spans.push_back({1, {MakeSpan(1, 1000, 5)}});
  metrics.OnCommitted(batch);
  EXPECT_EQ(SpansByName(metrics)["resumed_op"], 1u);
}

TEST(OpMetricsTest, WriteTo_HistogramCumulative) {
  OpMetrics metrics({});
  metrics.OnCommitted(BatchOfNames(1, 1, 1, 2, 1500));
  MetricsText text;
  metrics.WriteTo(&text);
  const std::string& t = text.text();
  EXPECT_NE(
      t.find("optrace_op_duration_seconds_bucket{name=\"op1\",target=\"gpu\",le=\"1.024e-06\"} 0"),
      std::string::npos)
      << t;
  EXPECT_NE(
      t.find("optrace_op_duration_seconds_bucket{name=\"op1\",target=\"gpu\",le=\"2.048e-06\"} 2"),
      std::string::npos);
  EXPECT_NE(t.find("optrace_op_duration_seconds_bucket{name=\"op1\",target=\"gpu\",le=\"+Inf\"} 2"),
            std::string::npos);
  EXPECT_NE(t.find("optrace_op_duration_seconds_count{name=\"op1\",target=\"gpu\"} 2"),
            std::string::npos);
  EXPECT_NE(t.find("optrace_ops_total{name=\"op1\",target=\"gpu\"} 2"), std::string::npos);
}

// The writer commits while scrapes read (TSan runs this).
TEST(OpMetricsTest, CommitWhileScraping_CountsStayMonotonic) {
  OpMetrics metrics(WithLimits(10, 20));
  std::thread writer([&] {
    for (uint32_t i = 0; i < 200; ++i) metrics.OnCommitted(BatchOfNames(1 + i % 3, 1, 15, 1));
  });
  uint64_t last = 0;
  for (int i = 0; i < 200; ++i) {
    uint64_t total = 0;
    for (const OpSeries& s : metrics.Series()) total += s.spans;
    EXPECT_GE(total, last);
    last = total;
    MetricsText text;
    metrics.WriteTo(&text);
  }
  writer.join();
  uint64_t total = 0;
  for (const OpSeries& s : metrics.Series()) total += s.spans;
  EXPECT_EQ(total, 200u * 15);
}

}  // namespace
}  // namespace optrace::daemon
