// GetStats's pass on two threads (each with its own reader, over every
// other page) finds exactly what one thread finds, for every grouping and
// with filters.
#include "query/stats_pass.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "api_test_store.h"
#include "model/duration_sketch.h"
#include "optrace/abi.h"
#include "store_test_data.h"

namespace optrace::daemon {
namespace {

using testing::ApiTestStore;
using testing::MakeSession;

constexpr SessionId kSession = 1;
constexpr int64_t kT0 = 1'780'000'000'000'000'000;
constexpr int kPages = 9;
constexpr int kSpansPerPage = 300;

class StatsPassTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const StringId names[] = {store_.Intern("matmul"), store_.Intern("softmax"),
                              store_.Intern("copy")};
    const StringId tags[] = {store_.Intern("matmul_8x8"), store_.Intern("softmax_8"),
                             store_.Intern("copy_64"), store_.Intern("matmul_16x16")};
    for (int page = 0; page < kPages; ++page) {
      std::vector<Span> spans;
      for (int i = 0; i < kSpansPerPage; ++i) {
        const int n = page * kSpansPerPage + i;
        Span s;
        s.op_id = static_cast<uint64_t>(n) + 1;
        s.start_ns = kT0 + n * 1000;
        s.name = names[n % 3];
        s.tag = tags[n % 4];
        s.target = static_cast<uint8_t>(n % 5 == 0 ? abi::TargetKind::kCpu : abi::TargetKind::kGpu);
        s.device = static_cast<uint16_t>(n % 2);
        s.status = n % 7 == 3 ? SpanStatus::kIncomplete : SpanStatus::kOk;
        s.duration_ns = s.status == SpanStatus::kOk ? 100 + (n * 7919) % 10'000 : 0;
        spans.push_back(s);
      }
      if (page == 0) {
        store_.AddSession(MakeSession(kSession, SessionState::kExited, kT0 - 1, kT0 + 10'000'000),
                          std::move(spans));
      } else {
        store_.AddSpans(kSession, std::move(spans));
      }
    }
  }

  // The rows and span count of one pass, rows in key order.
  struct Found {
    std::vector<StatsGroups::Row> rows;
    uint64_t spans = 0;
    bool exhausted = false;
    bool sketched = false;
  };
  Found Pass(const v1::GetStatsRequest& request, uint64_t two_threads_from_spans,
             StatsGroups::Limits limits = {}) {
    Result<std::vector<OpAggregateRow>> aggregates = store_.reader().Aggregates(kSession);
    EXPECT_TRUE(aggregates.ok()) << aggregates.status().message();
    Result<StatsPassResult> pass = RunStatsPass(
        store_.reader(), request, request.by(), aggregates.value(),
        {.limits = limits, .two_threads_from_spans = two_threads_from_spans, .second_thread = [] {
           return true;
         }});
    EXPECT_TRUE(pass.ok()) << pass.status().message();
    if (!pass.ok()) return {};
    Found found{pass.value().rows, pass.value().spans, pass.value().exhausted,
                pass.value().sketched};
    std::sort(found.rows.begin(), found.rows.end(),
              [](const StatsGroups::Row& a, const StatsGroups::Row& b) { return a.key < b.key; });
    return found;
  }

  ApiTestStore store_;
};

TEST_F(StatsPassTest, TwoThreads_EachGroupingAndFilter_SameAsOneThread) {
  // Both shares of the pages hold spans.
  for (uint32_t index : {0u, 1u}) {
    uint64_t spans = 0;
    ASSERT_TRUE(store_.reader()
                    .ForEachSpanPage(
                        kSession, std::numeric_limits<int64_t>::min(),
                        std::numeric_limits<int64_t>::max(),
                        [&](std::span<const Span> page) {
                          spans += page.size();
                          return true;
                        },
                        span_page::kAllColumns, PageShare{index, 2})
                    .ok());
    EXPECT_GT(spans, 0u) << "share " << index;
    EXPECT_LT(spans, uint64_t{kPages} * kSpansPerPage) << "share " << index;
  }
  const std::function<void(v1::OpFilter*)> filters[] = {
      [](v1::OpFilter*) {},
      [](v1::OpFilter* f) { f->set_name_pattern("^mat"); },
      [](v1::OpFilter* f) { f->set_tag_pattern("16"); },
      [](v1::OpFilter* f) { f->set_start_min_unix_ns(kT0 + 1000 * 1000); },
      [](v1::OpFilter* f) { f->set_min_duration_ns(5000); },
  };
  for (v1::GroupBy by : {v1::GROUP_BY_NAME, v1::GROUP_BY_TAG, v1::GROUP_BY_TARGET}) {
    for (size_t f = 0; f < std::size(filters); ++f) {
      SCOPED_TRACE("by " + std::to_string(by) + ", filter " + std::to_string(f));
      v1::GetStatsRequest request;
      request.set_session_id(kSession);
      request.set_by(by);
      filters[f](request.mutable_filter());
      const Found one = Pass(request, std::numeric_limits<uint64_t>::max());
      const Found two = Pass(request, 0);
      ASSERT_GT(one.spans, 0u);
      EXPECT_EQ(two.spans, one.spans);
      ASSERT_EQ(two.rows.size(), one.rows.size());
      for (size_t i = 0; i < one.rows.size(); ++i) {
        const StatsGroups::Row& a = one.rows[i];
        const StatsGroups::Row& b = two.rows[i];
        SCOPED_TRACE("group " + std::to_string(a.key));
        EXPECT_EQ(b.key, a.key);
        EXPECT_EQ(b.totals.count, a.totals.count);
        EXPECT_EQ(b.totals.ok_count, a.totals.ok_count);
        EXPECT_EQ(b.totals.total_ns, a.totals.total_ns);
        EXPECT_EQ(b.totals.min_ns, a.totals.min_ns);
        EXPECT_EQ(b.totals.max_ns, a.totals.max_ns);
        EXPECT_EQ(b.percentiles.p50, a.percentiles.p50);
        EXPECT_EQ(b.percentiles.p95, a.percentiles.p95);
        EXPECT_EQ(b.percentiles.p99, a.percentiles.p99);
      }
    }
  }
}

TEST_F(StatsPassTest, PastMaxExactDurations_SameCountsPercentilesFromSketchesWithinTheirError) {
  v1::GetStatsRequest request;
  request.set_session_id(kSession);
  request.set_by(v1::GROUP_BY_NAME);
  const Found exact = Pass(request, std::numeric_limits<uint64_t>::max());
  ASSERT_FALSE(exact.sketched);
  const auto within = [](uint64_t value, uint64_t exact_value) {
    const double error = DurationSketch::kRelativeError * static_cast<double>(exact_value);
    return static_cast<double>(value) >= static_cast<double>(exact_value) - error &&
           static_cast<double>(value) <= static_cast<double>(exact_value) + error;
  };
  // 100 durations kept exact, of about 2,300 OK spans: one thread, and two
  // (50 each, then merged).
  for (const uint64_t two_threads_from : {std::numeric_limits<uint64_t>::max(), uint64_t{0}}) {
    SCOPED_TRACE(two_threads_from == 0 ? "two threads" : "one thread");
    const Found sketched =
        Pass(request, two_threads_from, {.max_groups = SIZE_MAX, .max_exact_durations = 100});
    EXPECT_TRUE(sketched.sketched);
    EXPECT_FALSE(sketched.exhausted);
    EXPECT_EQ(sketched.spans, exact.spans);
    ASSERT_EQ(sketched.rows.size(), exact.rows.size());
    for (size_t i = 0; i < exact.rows.size(); ++i) {
      const StatsGroups::Row& a = exact.rows[i];
      const StatsGroups::Row& b = sketched.rows[i];
      EXPECT_EQ(b.totals.count, a.totals.count);
      EXPECT_EQ(b.totals.total_ns, a.totals.total_ns);
      EXPECT_EQ(b.totals.max_ns, a.totals.max_ns);
      EXPECT_TRUE(within(b.percentiles.p50, a.percentiles.p50))
          << b.percentiles.p50 << " vs " << a.percentiles.p50;
      EXPECT_TRUE(within(b.percentiles.p95, a.percentiles.p95))
          << b.percentiles.p95 << " vs " << a.percentiles.p95;
      EXPECT_TRUE(within(b.percentiles.p99, a.percentiles.p99))
          << b.percentiles.p99 << " vs " << a.percentiles.p99;
    }
  }
}

TEST_F(StatsPassTest, PastMaxGroups_PassStopsExhausted) {
  v1::GetStatsRequest request;
  request.set_session_id(kSession);
  request.set_by(v1::GROUP_BY_TAG);  // 4 tags
  for (const uint64_t two_threads_from : {std::numeric_limits<uint64_t>::max(), uint64_t{0}}) {
    EXPECT_TRUE(
        Pass(request, two_threads_from, {.max_groups = 3, .max_exact_durations = UINT64_MAX})
            .exhausted);
    const Found all =
        Pass(request, two_threads_from, {.max_groups = 4, .max_exact_durations = UINT64_MAX});
    EXPECT_FALSE(all.exhausted);
    EXPECT_EQ(all.rows.size(), 4u);
  }
}

TEST_F(StatsPassTest, TwoThreads_BadFilter_ErrorOfTheFilter) {
  v1::GetStatsRequest request;
  request.set_session_id(kSession);
  request.set_by(v1::GROUP_BY_NAME);
  request.mutable_filter()->set_name_pattern("(");
  Result<std::vector<OpAggregateRow>> aggregates = store_.reader().Aggregates(kSession);
  ASSERT_TRUE(aggregates.ok());
  Result<StatsPassResult> pass = RunStatsPass(
      store_.reader(), request, v1::GROUP_BY_NAME, aggregates.value(),
      {.limits = {}, .two_threads_from_spans = 0, .second_thread = [] { return true; }});
  ASSERT_FALSE(pass.ok());
  EXPECT_EQ(pass.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(pass.status().message().find("filter.name_pattern"), std::string::npos)
      << pass.status().message();
}

}  // namespace
}  // namespace optrace::daemon
