// QueryOps, GetStats and CompareSessions over a real database: filters,
// order, paging (overlapping pages, spans sharing start and op id), bad
// requests, and statistics checked against values the test computes from
// the spans it wrote.
#include "query/span_queries.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "api_test_store.h"
#include "model/duration_sketch.h"
#include "optrace/abi.h"
#include "storage/op_aggregate.h"
#include "store_test_data.h"
#include "wire/op_filter_check.h"

namespace optrace::daemon {
namespace {

using testing::ApiTestStore;
using testing::MakeSession;

constexpr SessionId kSession = 1;
constexpr SessionId kBigSession = 2;
constexpr int64_t kT0 = 1'780'000'000'000'000'000;
constexpr int64_t kStepNs = 37'000;
constexpr size_t kRegularSpans = 600;
// Spans from this index on start two seconds later: a gap the page scan
// must cross.
constexpr size_t kGapAt = 400;
constexpr int64_t kGapNs = 2'000'000'000;
constexpr uint64_t kSharedOpId = 20'000;

constexpr auto kCpu = static_cast<uint8_t>(abi::TargetKind::kCpu);
constexpr auto kGpu = static_cast<uint8_t>(abi::TargetKind::kGpu);

// A span's identity in these tests: (start, op id) and the fields that
// tell apart spans sharing them.
using SpanKey = std::tuple<int64_t, uint64_t, uint32_t, int>;

SpanKey KeyOf(const Span& s) {
  return {s.start_ns, s.op_id, s.launch_tid, static_cast<int>(s.status)};
}
SpanKey KeyOf(const v1::Span& s) {
  return {s.start_unix_ns(), s.op_id(), s.launch_thread(), static_cast<int>(s.status()) - 1};
}

// The nearest-rank percentile by its definition: the smallest value v of
// the sorted set such that at least `percent`% of the values are <= v.
uint64_t NearestRank(const std::vector<uint64_t>& sorted, uint64_t percent) {
  for (size_t rank = 1; rank <= sorted.size(); ++rank) {
    if (rank * 100 >= percent * sorted.size()) return sorted[rank - 1];
  }
  return 0;
}

// Every page of a query of `session` with `filter` and `limit`, followed
// cursor to cursor; `*pages` is how many calls it took.
std::vector<SpanKey> QueryAllPages(SpanReader& reader, SessionId session,
                                   const v1::OpFilter& filter, uint32_t limit, int* pages) {
  std::vector<SpanKey> keys;
  std::string cursor;
  *pages = 0;
  do {
    v1::QueryOpsRequest request;
    request.set_session_id(session);
    *request.mutable_filter() = filter;
    request.set_limit(limit);
    request.set_cursor(cursor);
    Result<QueryPage> page = QueryOps(reader, request);
    EXPECT_TRUE(page.ok()) << page.status().message();
    if (!page.ok() || ++*pages > 10'000) break;
    EXPECT_LE(page->spans.size(), limit);
    for (const v1::Span& s : page->spans) keys.push_back(KeyOf(s));
    cursor = page->next_cursor;
  } while (!cursor.empty());
  return keys;
}

class SpanQueriesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* names[][2] = {{"matmul", "matmul_128x256"},
                              {"matmul", "matmul_512x512"},
                              {"softmax", "softmax_f32"},
                              {"layer_norm", "layer_norm_f16"}};
    std::vector<Span> first;
    std::vector<Span> second;
    for (size_t i = 0; i < kRegularSpans; ++i) {
      Span s;
      s.op_id = i + 1;
      s.parent_op_id = i % 4 == 0 ? 0 : i;
      s.start_ns = kT0 + static_cast<int64_t>(i) * kStepNs + (i >= kGapAt ? kGapNs : 0);
      s.name = store_.Intern(names[i % 4][0]);
      s.tag = store_.Intern(names[i % 4][1]);
      s.srcloc = store_.Intern("model.py:" + std::to_string(10 + i % 4));
      s.target = i % 3 == 0 ? kCpu : kGpu;
      s.device = static_cast<uint16_t>((i / 3) % 2);
      s.stream = static_cast<uint32_t>(i % 5);
      s.status = i % 11 == 5   ? SpanStatus::kIncomplete
                 : i % 13 == 6 ? SpanStatus::kCompleteWithoutLaunch
                 : i % 17 == 8 ? SpanStatus::kDuplicate
                               : SpanStatus::kOk;
      s.duration_ns = s.status == SpanStatus::kOk ? 1000 + (i * 7919) % 50'000 : 0;
      s.has_device_ns = s.target == kGpu;
      s.device_ns = s.has_device_ns ? s.duration_ns / 2 : 0;
      s.launch_tid = s.status == SpanStatus::kCompleteWithoutLaunch ? 0 : 100 + i % 3;
      s.complete_tid = s.status == SpanStatus::kIncomplete ? 0 : 200 + i % 3;
      (i < kRegularSpans / 2 ? first : second).push_back(s);
    }
    // Long ops stored late: their page starts before the pages already
    // stored end, so pages overlap in time.
    std::vector<Span> late;
    for (size_t at : {5u, 250u, 420u}) {
      Span s = first.front();
      s.op_id = 10'000 + at;
      s.start_ns = kT0 + static_cast<int64_t>(at) * kStepNs + (at >= kGapAt ? kGapNs : 0) + 3;
      s.duration_ns = 900'000'000;
      late.push_back(s);
    }
    // Three spans with one start and one op id (an OK span and two
    // duplicate LAUNCHes at the same instant), told apart by their thread.
    for (uint32_t tid : {7u, 8u, 9u}) {
      Span s = first[100];
      s.op_id = kSharedOpId;
      s.launch_tid = tid;
      s.status = tid == 7 ? SpanStatus::kOk : SpanStatus::kDuplicate;
      s.duration_ns = tid == 7 ? 5000 : 0;
      late.push_back(s);
    }
    all_ = first;
    all_.insert(all_.end(), second.begin(), second.end());
    all_.insert(all_.end(), late.begin(), late.end());
    store_.AddSession(MakeSession(kSession, SessionState::kExited, kT0 - 1000, kT0 + 3 * kGapNs),
                      std::move(first));
    store_.AddSpans(kSession, std::move(second));
    store_.AddSpans(kSession, std::move(late));
  }

  // The spans of `all_` that pass `keep`, in QueryOps order.
  std::vector<SpanKey> Expected(const std::function<bool(const Span&)>& keep) const {
    std::vector<SpanKey> keys;
    for (const Span& s : all_) {
      if (keep(s)) keys.push_back(KeyOf(s));
    }
    std::sort(keys.begin(), keys.end());
    return keys;
  }

  Result<QueryPage> Query(const v1::OpFilter& filter, uint32_t limit,
                          const std::string& cursor = "", SessionId session = kSession) {
    v1::QueryOpsRequest request;
    request.set_session_id(session);
    *request.mutable_filter() = filter;
    request.set_limit(limit);
    request.set_cursor(cursor);
    return QueryOps(store_.reader(), request);
  }

  std::vector<SpanKey> QueryAll(const v1::OpFilter& filter, uint32_t limit, int* pages) {
    return QueryAllPages(store_.reader(), kSession, filter, limit, pages);
  }

  ApiTestStore store_;
  std::vector<Span> all_;
};

TEST_F(SpanQueriesTest, QueryOps_NoFilter_EverySpanInStartThenOpIdOrder) {
  Result<QueryPage> page = Query({}, kMaxQueryLimit);
  ASSERT_TRUE(page.ok()) << page.status().message();
  EXPECT_TRUE(page->next_cursor.empty());
  std::vector<SpanKey> got;
  for (const v1::Span& s : page->spans) got.push_back(KeyOf(s));
  EXPECT_EQ(got, Expected([](const Span&) { return true; }));
}

TEST_F(SpanQueriesTest, QueryOps_OneSpan_EveryFieldResolved) {
  const Span& want = all_[14];  // a GPU span: op 15
  ASSERT_EQ(want.status, SpanStatus::kOk);
  v1::OpFilter filter;
  filter.set_start_min_unix_ns(want.start_ns);
  filter.set_start_max_unix_ns(want.start_ns);
  Result<QueryPage> page = Query(filter, 10);
  ASSERT_TRUE(page.ok()) << page.status().message();
  ASSERT_EQ(page->spans.size(), 1u);
  const v1::Span& got = page->spans[0];
  EXPECT_EQ(got.session_id(), kSession);
  EXPECT_EQ(got.op_id(), want.op_id);
  EXPECT_EQ(got.parent_op_id(), want.parent_op_id);
  EXPECT_EQ(got.name(), "softmax");
  EXPECT_EQ(got.tag(), "softmax_f32");
  EXPECT_EQ(got.source_location(), "model.py:12");
  EXPECT_EQ(got.device().target(), v1::TARGET_GPU);
  EXPECT_EQ(got.device().ordinal(), want.device);
  EXPECT_EQ(got.device().stream(), want.stream);
  EXPECT_EQ(got.start_unix_ns(), want.start_ns);
  EXPECT_EQ(got.duration_ns(), want.duration_ns);
  EXPECT_EQ(got.device_duration_ns(), want.device_ns);
  EXPECT_EQ(got.launch_thread(), want.launch_tid);
  EXPECT_EQ(got.complete_thread(), want.complete_tid);
  EXPECT_EQ(got.status(), v1::SPAN_STATUS_OK);
}

struct FilterCase {
  const char* what;
  std::function<void(v1::OpFilter*)> set;
  std::function<bool(const Span&, const ApiTestStore&)> keep;
};

TEST_F(SpanQueriesTest, QueryOps_EachFilterField_ExactlyTheMatchingSpans) {
  const int64_t from = kT0 + 100 * kStepNs;
  const int64_t to = kT0 + kGapAt * kStepNs + kGapNs + 50 * kStepNs;
  const FilterCase cases[] = {
      {"name matched anywhere", [](v1::OpFilter* f) { f->set_name_pattern("norm"); },
       [](const Span& s, const ApiTestStore& st) { return st.Text(s.name) == "layer_norm"; }},
      {"name anchored", [](v1::OpFilter* f) { f->set_name_pattern("^(mat|soft)"); },
       [](const Span& s, const ApiTestStore& st) { return st.Text(s.name) != "layer_norm"; }},
      {"tag", [](v1::OpFilter* f) { f->set_tag_pattern("512x"); },
       [](const Span& s, const ApiTestStore& st) { return st.Text(s.tag) == "matmul_512x512"; }},
      {"target", [](v1::OpFilter* f) { f->set_target(v1::TARGET_CPU); },
       [](const Span& s, const ApiTestStore&) { return s.target == kCpu; }},
      {"device", [](v1::OpFilter* f) { f->set_has_device(true), f->set_device(1); },
       [](const Span& s, const ApiTestStore&) { return s.device == 1; }},
      {"device 0 is a filter too", [](v1::OpFilter* f) { f->set_has_device(true); },
       [](const Span& s, const ApiTestStore&) { return s.device == 0; }},
      {"status", [](v1::OpFilter* f) { f->set_status(v1::SPAN_STATUS_INCOMPLETE); },
       [](const Span& s, const ApiTestStore&) { return s.status == SpanStatus::kIncomplete; }},
      {"time range across the gap",
       [&](v1::OpFilter* f) { f->set_start_min_unix_ns(from), f->set_start_max_unix_ns(to); },
       [&](const Span& s, const ApiTestStore&) { return s.start_ns >= from && s.start_ns <= to; }},
      {"min duration", [](v1::OpFilter* f) { f->set_min_duration_ns(40'000); },
       [](const Span& s, const ApiTestStore&) { return s.duration_ns >= 40'000; }},
      {"all at once",
       [](v1::OpFilter* f) {
         f->set_name_pattern("mat"), f->set_tag_pattern("128"), f->set_target(v1::TARGET_GPU);
         f->set_status(v1::SPAN_STATUS_OK), f->set_min_duration_ns(2000);
       },
       [](const Span& s, const ApiTestStore& st) {
         return st.Text(s.tag) == "matmul_128x256" && s.target == kGpu &&
                s.status == SpanStatus::kOk && s.duration_ns >= 2000;
       }},
      {"nothing matches", [](v1::OpFilter* f) { f->set_name_pattern("^conv"); },
       [](const Span&, const ApiTestStore&) { return false; }},
  };
  for (const FilterCase& c : cases) {
    SCOPED_TRACE(c.what);
    v1::OpFilter filter;
    c.set(&filter);
    const std::vector<SpanKey> expected =
        Expected([&](const Span& s) { return c.keep(s, store_); });
    EXPECT_FALSE(expected.empty() && std::string(c.what) != "nothing matches");
    int pages = 0;
    EXPECT_EQ(QueryAll(filter, kMaxQueryLimit, &pages), expected);
    EXPECT_EQ(pages, 1);
    // The same through small pages.
    EXPECT_EQ(QueryAll(filter, 9, &pages), expected);
  }
}

TEST_F(SpanQueriesTest, QueryOps_SmallLimits_PagesCollectEverySpanExactlyOnce) {
  const std::vector<SpanKey> expected = Expected([](const Span&) { return true; });
  for (uint32_t limit : {1u, 2u, 3u, 7u, 64u, 1000u}) {
    SCOPED_TRACE("limit " + std::to_string(limit));
    int pages = 0;
    EXPECT_EQ(QueryAll({}, limit, &pages), expected);
    EXPECT_EQ(static_cast<size_t>(pages), (expected.size() + limit - 1) / limit);
  }
}

TEST_F(SpanQueriesTest, QueryOps_SpansSharingStartAndOpId_SplitAcrossPagesEachOnce) {
  // Pages of one span: the three spans of kSharedOpId fall on three pages.
  v1::OpFilter filter;
  filter.set_start_min_unix_ns(all_[100].start_ns);
  filter.set_start_max_unix_ns(all_[100].start_ns);
  int pages = 0;
  const std::vector<SpanKey> got = QueryAll(filter, 1, &pages);
  EXPECT_EQ(got, Expected([&](const Span& s) { return s.start_ns == all_[100].start_ns; }));
  EXPECT_EQ(got.size(), 4u);
  EXPECT_EQ(pages, 4);
}

TEST_F(SpanQueriesTest, QueryOps_LimitZero_DefaultLimitAndACursor) {
  store_.AddSession(MakeSession(kBigSession), testing::SpanRun(1, kT0, kDefaultQueryLimit + 500));
  Result<QueryPage> page = Query({}, 0, "", kBigSession);
  ASSERT_TRUE(page.ok()) << page.status().message();
  EXPECT_EQ(page->spans.size(), kDefaultQueryLimit);
  ASSERT_FALSE(page->next_cursor.empty());
  Result<QueryPage> rest = Query({}, 0, page->next_cursor, kBigSession);
  ASSERT_TRUE(rest.ok()) << rest.status().message();
  EXPECT_EQ(rest->spans.size(), 500u);
  EXPECT_EQ(rest->spans.front().op_id(), kDefaultQueryLimit + 1);
  EXPECT_TRUE(rest->next_cursor.empty());
}

TEST_F(SpanQueriesTest, QueryOps_UnknownSession_EmptyPageNoCursor) {
  Result<QueryPage> page = Query({}, 10, "", 999);
  ASSERT_TRUE(page.ok()) << page.status().message();
  EXPECT_TRUE(page->spans.empty());
  EXPECT_TRUE(page->next_cursor.empty());
}

TEST_F(SpanQueriesTest, QueryOps_LastPageExactlyFull_NoCursor) {
  const size_t total = Expected([](const Span&) { return true; }).size();
  Result<QueryPage> page = Query({}, static_cast<uint32_t>(total));
  ASSERT_TRUE(page.ok()) << page.status().message();
  EXPECT_EQ(page->spans.size(), total);
  EXPECT_TRUE(page->next_cursor.empty());
}

// One bad request: what it is, how to send it, and a word its message must
// hold.
struct BadRequest {
  const char* what;
  std::function<Status(SpanReader&)> send;
  const char* message_holds;
};

TEST_F(SpanQueriesTest, Malicious_BadRequests_EachInvalidArgumentNamingTheProblem) {
  const auto query = [](std::function<void(v1::QueryOpsRequest*)> set) {
    return [set](SpanReader& reader) {
      v1::QueryOpsRequest request;
      request.set_session_id(kSession);
      set(&request);
      return QueryOps(reader, request).status();
    };
  };
  const auto stats = [](std::function<void(v1::GetStatsRequest*)> set) {
    return [set](SpanReader& reader) {
      v1::GetStatsRequest request;
      request.set_session_id(kSession);
      set(&request);
      v1::GetStatsResponse response;
      return GetStats(reader, request, QueryLimits{}, &response);
    };
  };
  const auto compare = [](v1::GroupBy by) {
    return [by](SpanReader& reader) {
      v1::CompareSessionsRequest request;
      request.set_session_a(kSession);
      request.set_session_b(kSession);
      request.set_by(by);
      v1::CompareSessionsResponse response;
      return CompareSessions(reader, request, QueryLimits{}, &response);
    };
  };
  const std::string long_pattern(kMaxPatternBytes + 1, 'a');
  const BadRequest cases[] = {
      {"limit above the maximum", query([](auto* r) { r->set_limit(kMaxQueryLimit + 1); }),
       "limit 100001"},
      {"limit far above", query([](auto* r) { r->set_limit(0xffffffff); }), "limit"},
      {"name pattern that does not compile",
       query([](auto* r) { r->mutable_filter()->set_name_pattern("mat(mul"); }),
       "filter.name_pattern"},
      {"tag pattern that does not compile",
       query([](auto* r) { r->mutable_filter()->set_tag_pattern("[a-"); }), "filter.tag_pattern"},
      {"pattern too long",
       query([&](auto* r) { r->mutable_filter()->set_name_pattern(long_pattern); }),
       "at most 1024"},
      {"pattern too big for RE2's memory",
       query([](auto* r) { r->mutable_filter()->set_name_pattern("((a{100}){100}){100}"); }),
       "filter.name_pattern"},
      {"unknown target", query([](auto* r) { r->mutable_filter()->set_target(v1::Target(9)); }),
       "filter.target 9"},
      {"unknown status",
       query([](auto* r) { r->mutable_filter()->set_status(v1::SpanStatus(42)); }),
       "filter.status 42"},
      {"device above any ordinal", query([](auto* r) {
         r->mutable_filter()->set_has_device(true), r->mutable_filter()->set_device(70'000);
       }),
       "filter.device 70000"},
      {"inverted time range", query([](auto* r) {
         r->mutable_filter()->set_start_min_unix_ns(20),
             r->mutable_filter()->set_start_max_unix_ns(10);
       }),
       "start_min_unix_ns 20 is after start_max_unix_ns 10"},
      {"cursor of garbage", query([](auto* r) { r->set_cursor("garbage"); }),
       "is not one this daemon returned"},
      {"cursor missing a part", query([](auto* r) { r->set_cursor("12:34"); }), "cursor \"12:34\""},
      {"cursor with trailing bytes", query([](auto* r) { r->set_cursor("12:34:1x"); }), "cursor"},
      {"cursor with a count of 0", query([](auto* r) { r->set_cursor("12:34:0"); }), "cursor"},
      {"cursor with a negative op id", query([](auto* r) { r->set_cursor("12:-34:1"); }), "cursor"},
      {"cursor out of range", query([](auto* r) { r->set_cursor("99999999999999999999:1:1"); }),
       "cursor"},
      {"cursor of 10 kB, quoted cut short",
       query([](auto* r) { r->set_cursor(std::string(10'000, '7')); }), "...\" is not one"},
      {"stats grouped by an unknown key", stats([](auto* r) { r->set_by(v1::GroupBy(9)); }),
       "by 9"},
      {"stats with a bad filter",
       stats([](auto* r) { r->mutable_filter()->set_name_pattern("("); }), "filter.name_pattern"},
      {"compare by target", compare(v1::GROUP_BY_TARGET), "GROUP_BY_TARGET"},
      {"compare by an unknown key", compare(v1::GroupBy(7)), "by 7"},
  };
  for (const BadRequest& c : cases) {
    SCOPED_TRACE(c.what);
    const Status status = c.send(store_.reader());
    EXPECT_EQ(status.code(), Status::Code::kInvalidArgument) << status.message();
    EXPECT_NE(status.message().find(c.message_holds), std::string::npos) << status.message();
    EXPECT_LT(status.message().size(), 2 * kMaxPatternBytes) << "messages stay short";
  }
}

// GetStats's numbers for one group, computed here from the spans.
struct ExpectedStats {
  uint64_t count = 0;
  std::vector<uint64_t> durations;  // OK spans'
};

// The percentile `read` against the exact one: equal when exact, within
// the sketch's error when from the aggregates.
void ExpectPercentile(uint64_t read, uint64_t exact, bool exactly) {
  if (exactly) {
    EXPECT_EQ(read, exact);
  } else {
    EXPECT_NEAR(static_cast<double>(read), static_cast<double>(exact),
                static_cast<double>(exact) * DurationSketch::kRelativeError);
  }
}

// Each grouping from the aggregates (the default) and from a pass over the
// spans (`exact`): the same counts and totals, exact percentiles only from
// the pass.
TEST_F(SpanQueriesTest, GetStats_EachGrouping_NumbersComputedFromTheDurations) {
  const std::pair<v1::GroupBy, std::function<std::string(const Span&)>> groupings[] = {
      {v1::GROUP_BY_UNSPECIFIED, [&](const Span& s) { return store_.Text(s.name); }},
      {v1::GROUP_BY_NAME, [&](const Span& s) { return store_.Text(s.name); }},
      {v1::GROUP_BY_TAG, [&](const Span& s) { return store_.Text(s.tag); }},
      {v1::GROUP_BY_TARGET,
       [](const Span& s) {
         return std::string(s.target == kCpu ? "cpu" : "gpu") + ":" + std::to_string(s.device);
       }},
  };
  for (const bool exact : {false, true}) {
    for (const auto& [by, key_of] : groupings) {
      SCOPED_TRACE("by " + std::to_string(by) + (exact ? ", exact" : ", from aggregates"));
      std::map<std::string, ExpectedStats> expected;
      uint64_t session_total = 0;
      for (const Span& s : all_) {
        ExpectedStats& e = expected[key_of(s)];
        ++e.count;
        if (s.status == SpanStatus::kOk) {
          e.durations.push_back(s.duration_ns);
          session_total += s.duration_ns;
        }
      }
      v1::GetStatsRequest request;
      request.set_session_id(kSession);
      request.set_by(by);
      request.set_exact(exact);
      v1::GetStatsResponse response;
      const Status status = GetStats(store_.reader(), request, {}, &response);
      ASSERT_TRUE(status.ok()) << status.message();
      EXPECT_EQ(response.source(), exact ? v1::STATS_SOURCE_SPANS : v1::STATS_SOURCE_AGGREGATES);
      EXPECT_EQ(response.percentiles_exact(), exact);
      EXPECT_EQ(response.groups_folded(), 0u);
      if (!exact) {
        EXPECT_EQ(response.percentile_relative_error(), DurationSketch::kRelativeError);
        uint64_t ok_spans = 0;
        for (const v1::OpStats& row : response.rows()) ok_spans += row.ok_count();
        EXPECT_EQ(response.percentile_spans(), ok_spans);
      }
      EXPECT_EQ(response.spans(), all_.size());
      EXPECT_EQ(response.total_ns(), session_total);
      ASSERT_EQ(static_cast<size_t>(response.rows_size()), expected.size());
      double shares = 0;
      for (int i = 0; i < response.rows_size(); ++i) {
        const v1::OpStats& row = response.rows(i);
        SCOPED_TRACE(row.key());
        ASSERT_EQ(expected.count(row.key()), 1u);
        ExpectedStats& e = expected[row.key()];
        std::sort(e.durations.begin(), e.durations.end());
        uint64_t total = 0;
        for (uint64_t d : e.durations) total += d;
        EXPECT_EQ(row.count(), e.count);
        EXPECT_EQ(row.ok_count(), e.durations.size());
        EXPECT_EQ(row.total_ns(), total);
        EXPECT_DOUBLE_EQ(row.mean_ns(), static_cast<double>(total) / e.durations.size());
        EXPECT_EQ(row.min_ns(), e.durations.front());
        EXPECT_EQ(row.max_ns(), e.durations.back());
        ExpectPercentile(row.p50_ns(), NearestRank(e.durations, 50), exact);
        ExpectPercentile(row.p95_ns(), NearestRank(e.durations, 95), exact);
        ExpectPercentile(row.p99_ns(), NearestRank(e.durations, 99), exact);
        EXPECT_DOUBLE_EQ(row.share(), static_cast<double>(total) / session_total);
        shares += row.share();
        if (i > 0) {
          EXPECT_GE(response.rows(i - 1).total_ns(), row.total_ns()) << "largest first";
        }
      }
      EXPECT_NEAR(shares, 1.0, 1e-9);
    }
  }
}

TEST_F(SpanQueriesTest, GetStats_TargetGroups_KeysAreTargetAndOrdinal) {
  v1::GetStatsRequest request;
  request.set_session_id(kSession);
  request.set_by(v1::GROUP_BY_TARGET);
  v1::GetStatsResponse response;
  ASSERT_TRUE(GetStats(store_.reader(), request, {}, &response).ok());
  std::set<std::string> keys;
  for (const v1::OpStats& row : response.rows()) keys.insert(row.key());
  EXPECT_EQ(keys, (std::set<std::string>{"cpu:0", "cpu:1", "gpu:0", "gpu:1"}));
}

TEST_F(SpanQueriesTest, GetStats_Filter_OnlyMatchingSpansCounted) {
  v1::GetStatsRequest request;
  request.set_session_id(kSession);
  request.set_by(v1::GROUP_BY_TAG);
  request.mutable_filter()->set_name_pattern("^matmul$");
  request.mutable_filter()->set_target(v1::TARGET_GPU);
  v1::GetStatsResponse response;
  const Status status = GetStats(store_.reader(), request, {}, &response);
  ASSERT_TRUE(status.ok()) << status.message();
  uint64_t spans = 0;
  uint64_t total = 0;
  for (const Span& s : all_) {
    if (store_.Text(s.name) != "matmul" || s.target != kGpu) continue;
    ++spans;
    total += s.status == SpanStatus::kOk ? s.duration_ns : 0;
  }
  EXPECT_EQ(response.spans(), spans);
  EXPECT_EQ(response.total_ns(), total);
  ASSERT_EQ(response.rows_size(), 2);
  for (const v1::OpStats& row : response.rows()) {
    EXPECT_TRUE(row.key() == "matmul_128x256" || row.key() == "matmul_512x512") << row.key();
  }
}

// GetStats reads only the span columns its grouping and filter need: each
// filter condition alone, under each grouping, counts the spans and the
// time that a pass over every field finds here.
TEST_F(SpanQueriesTest, GetStats_EachFilterCondition_SpansAndTotalAsComputedHere) {
  const int64_t mid = all_[kRegularSpans / 2].start_ns;
  const std::pair<std::function<void(v1::OpFilter*)>, std::function<bool(const Span&)>>
      conditions[] = {
          {[](v1::OpFilter* f) { f->set_name_pattern("^soft"); },
           [&](const Span& s) { return store_.Text(s.name) == "softmax"; }},
          {[](v1::OpFilter* f) { f->set_tag_pattern("512"); },
           [&](const Span& s) { return store_.Text(s.tag) == "matmul_512x512"; }},
          {[](v1::OpFilter* f) { f->set_target(v1::TARGET_CPU); },
           [](const Span& s) { return s.target == kCpu; }},
          {[](v1::OpFilter* f) {
             f->set_has_device(true);
             f->set_device(1);
           },
           [](const Span& s) { return s.device == 1; }},
          {[](v1::OpFilter* f) { f->set_status(v1::SPAN_STATUS_INCOMPLETE); },
           [](const Span& s) { return s.status == SpanStatus::kIncomplete; }},
          {[](v1::OpFilter* f) { f->set_min_duration_ns(30'000); },
           [](const Span& s) { return s.duration_ns >= 30'000; }},
          {[mid](v1::OpFilter* f) { f->set_start_min_unix_ns(mid); },
           [mid](const Span& s) { return s.start_ns >= mid; }},
      };
  for (v1::GroupBy by : {v1::GROUP_BY_NAME, v1::GROUP_BY_TAG, v1::GROUP_BY_TARGET}) {
    for (size_t c = 0; c < std::size(conditions); ++c) {
      SCOPED_TRACE("by " + std::to_string(by) + ", condition " + std::to_string(c));
      uint64_t spans = 0;
      uint64_t total = 0;
      for (const Span& s : all_) {
        if (!conditions[c].second(s)) continue;
        ++spans;
        total += s.status == SpanStatus::kOk ? s.duration_ns : 0;
      }
      ASSERT_GT(spans, 0u);
      ASSERT_LT(spans, all_.size());
      v1::GetStatsRequest request;
      request.set_session_id(kSession);
      request.set_by(by);
      conditions[c].first(request.mutable_filter());
      v1::GetStatsResponse response;
      const Status status = GetStats(store_.reader(), request, {}, &response);
      ASSERT_TRUE(status.ok()) << status.message();
      EXPECT_EQ(response.spans(), spans);
      EXPECT_EQ(response.total_ns(), total);
      // The first four are key conditions, which the aggregates answer.
      EXPECT_EQ(response.source(), c < 4 ? v1::STATS_SOURCE_AGGREGATES : v1::STATS_SOURCE_SPANS);
    }
  }
}

// A session past the aggregates' bound: by tag, the groups kept and one
// "(other)" row, the groups folded counted, the session's spans and time
// exact; a tag filter cannot be answered from there and reads the spans.
TEST_F(SpanQueriesTest, GetStats_GroupsFolded_OtherRowAndCountFromAggregates) {
  constexpr SessionId kManyTags = 77;
  std::vector<Span> spans;
  uint64_t total = 0;
  for (uint64_t i = 1; i <= kMaxAggregateGroups + 1; ++i) {
    Span s = testing::MakeSpan(i, kT0 + static_cast<int64_t>(i), store_.Intern("op"), i * 10);
    s.tag = store_.Intern("tag" + std::to_string(i));
    total += s.duration_ns;
    spans.push_back(s);
  }
  store_.AddSession(MakeSession(kManyTags), std::move(spans));
  v1::GetStatsRequest request;
  request.set_session_id(kManyTags);
  request.set_by(v1::GROUP_BY_TAG);
  v1::GetStatsResponse response;
  ASSERT_TRUE(GetStats(store_.reader(), request, {}, &response).ok());
  EXPECT_EQ(response.source(), v1::STATS_SOURCE_AGGREGATES);
  EXPECT_EQ(response.groups_folded(), kMaxAggregateGroups + 1 - kAggregateGroupsAfterFold);
  EXPECT_EQ(response.spans(), kMaxAggregateGroups + 1);
  EXPECT_EQ(response.total_ns(), total);
  ASSERT_EQ(static_cast<uint64_t>(response.rows_size()), kAggregateGroupsAfterFold + 1);
  EXPECT_EQ(response.rows(0).key(), "(other)") << "the folded half holds the most time here";
  EXPECT_EQ(response.rows(0).count(), kMaxAggregateGroups + 1 - kAggregateGroupsAfterFold);
  EXPECT_EQ(response.rows(1).key(), "tag" + std::to_string(kMaxAggregateGroups + 1));

  request.mutable_filter()->set_tag_pattern("^tag1$");
  ASSERT_TRUE(GetStats(store_.reader(), request, {}, &response).ok());
  EXPECT_EQ(response.source(), v1::STATS_SOURCE_SPANS);
  EXPECT_EQ(response.groups_folded(), 0u);
  ASSERT_EQ(response.rows_size(), 1);
  EXPECT_EQ(response.rows(0).count(), 1u);
  EXPECT_EQ(response.rows(0).p50_ns(), 10u);
}

TEST_F(SpanQueriesTest, GetStats_Top_KeepsLargestRowsWithSharesOfAllGroups) {
  v1::GetStatsRequest request;
  request.set_session_id(kSession);
  request.set_by(v1::GROUP_BY_TAG);
  v1::GetStatsResponse all;
  ASSERT_TRUE(GetStats(store_.reader(), request, {}, &all).ok());
  ASSERT_EQ(all.rows_size(), 4);
  request.set_top(2);
  v1::GetStatsResponse top;
  ASSERT_TRUE(GetStats(store_.reader(), request, {}, &top).ok());
  ASSERT_EQ(top.rows_size(), 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(top.rows(i).key(), all.rows(i).key());
    EXPECT_DOUBLE_EQ(top.rows(i).share(), all.rows(i).share());
  }
  EXPECT_EQ(top.total_ns(), all.total_ns());
  EXPECT_EQ(top.spans(), all.spans());
  EXPECT_LT(top.rows(0).share() + top.rows(1).share(), 1.0);
}

TEST_F(SpanQueriesTest, GetStats_MoreGroupsThanMaxGroups_ResourceExhaustedNamingTheKey) {
  v1::GetStatsRequest request;
  request.set_session_id(kSession);
  request.set_by(v1::GROUP_BY_TAG);         // 4 tags
  for (const bool exact : {false, true}) {  // from the aggregates, then a pass
    request.set_exact(exact);
    v1::GetStatsResponse response;
    const Status refused = GetStats(
        store_.reader(), request,
        QueryLimits{.max_groups = 3, .max_exact_durations = UINT64_MAX, .second_thread = {}},
        &response);
    EXPECT_EQ(refused.code(), Status::Code::kResourceExhausted) << refused.message();
    EXPECT_NE(refused.message().find("more than 3 groups, the cap max_query_groups is 3"),
              std::string::npos)
        << refused.message();
    EXPECT_TRUE(
        GetStats(
            store_.reader(), request,
            QueryLimits{.max_groups = 100, .max_exact_durations = UINT64_MAX, .second_thread = {}},
            &response)
            .ok());
    EXPECT_EQ(response.rows_size(), 4);
  }
}

TEST_F(SpanQueriesTest, GetStats_PastMaxExactDurations_AnsweredFromSketchesAndSaysSo) {
  v1::GetStatsRequest request;
  request.set_session_id(kSession);
  request.set_exact(true);
  v1::GetStatsResponse exact;
  ASSERT_TRUE(GetStats(store_.reader(), request, {}, &exact).ok());
  EXPECT_TRUE(exact.percentiles_exact());
  v1::GetStatsResponse sketched;
  ASSERT_TRUE(
      GetStats(store_.reader(), request,
               QueryLimits{.max_groups = 100, .max_exact_durations = 1, .second_thread = {}},
               &sketched)
          .ok());
  EXPECT_EQ(sketched.source(), v1::STATS_SOURCE_SPANS);
  EXPECT_FALSE(sketched.percentiles_exact());
  EXPECT_DOUBLE_EQ(sketched.percentile_relative_error(), DurationSketch::kRelativeError);
  uint64_t ok_spans = 0;
  for (const v1::OpStats& row : exact.rows()) ok_spans += row.ok_count();
  EXPECT_EQ(sketched.percentile_spans(), ok_spans);
  ASSERT_EQ(sketched.rows_size(), exact.rows_size());
  for (int i = 0; i < exact.rows_size(); ++i) {
    EXPECT_EQ(sketched.rows(i).key(), exact.rows(i).key());
    EXPECT_EQ(sketched.rows(i).total_ns(), exact.rows(i).total_ns());
    EXPECT_NEAR(static_cast<double>(sketched.rows(i).p50_ns()),
                static_cast<double>(exact.rows(i).p50_ns()),
                DurationSketch::kRelativeError * static_cast<double>(exact.rows(i).p50_ns()));
  }
}

TEST_F(SpanQueriesTest, GetStats_NoMatchingSpan_NoRowsZeroTotals) {
  v1::GetStatsRequest request;
  request.set_session_id(999);
  v1::GetStatsResponse response;
  ASSERT_TRUE(GetStats(store_.reader(), request, {}, &response).ok());
  EXPECT_EQ(response.rows_size(), 0);
  EXPECT_EQ(response.total_ns(), 0u);
  EXPECT_EQ(response.spans(), 0u);
}

// A session whose spans sit at the ends of the time axis and last as
// long as a uint64 allows: windows, cursors and sums must not overflow.
class ExtremeSessionTest : public ::testing::Test {
 protected:
  static constexpr SessionId kExtreme = 20;

  void SetUp() override {
    const StringId name = store_.Intern("op");
    const int64_t starts[] = {
        std::numeric_limits<int64_t>::min(),     std::numeric_limits<int64_t>::min() + 1, -1, 0, 1,
        std::numeric_limits<int64_t>::max() - 1, std::numeric_limits<int64_t>::max()};
    uint64_t op = 0;
    for (int64_t start : starts) {
      for (int copy = 0; copy < 2; ++copy) {
        Span s = testing::MakeSpan(++op, start, name, std::numeric_limits<uint64_t>::max());
        s.op_id = copy == 0 ? op : std::numeric_limits<uint64_t>::max();
        spans_.push_back(s);
      }
    }
    store_.AddSession(MakeSession(kExtreme), spans_);
  }

  ApiTestStore store_;
  std::vector<Span> spans_;
};

TEST_F(ExtremeSessionTest, Malicious_ExtremeStartsAndIds_PagedEachOnceInOrder) {
  std::vector<SpanKey> expected;
  for (const Span& s : spans_) expected.push_back(KeyOf(s));
  std::sort(expected.begin(), expected.end());
  for (uint32_t limit : {1u, 3u, 100u}) {
    int pages = 0;
    EXPECT_EQ(QueryAllPages(store_.reader(), kExtreme, {}, limit, &pages), expected)
        << "limit " << limit;
  }
}

TEST_F(ExtremeSessionTest, Malicious_HugeDurations_TotalsSaturateAtInt64Max) {
  v1::GetStatsRequest request;
  request.set_session_id(kExtreme);
  v1::GetStatsResponse response;
  const Status status = GetStats(store_.reader(), request, {}, &response);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(response.rows_size(), 1);
  const uint64_t cap = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(response.total_ns(), cap);
  EXPECT_EQ(response.rows(0).total_ns(), cap);
  EXPECT_EQ(response.rows(0).max_ns(), cap);
  EXPECT_EQ(response.rows(0).p99_ns(), cap);
  EXPECT_DOUBLE_EQ(response.rows(0).share(), 1.0);

  v1::CompareSessionsRequest compare;
  compare.set_session_a(kExtreme);
  compare.set_session_b(999);  // no such session: every key only in a
  v1::CompareSessionsResponse compared;
  ASSERT_TRUE(CompareSessions(store_.reader(), compare, {}, &compared).ok());
  ASSERT_EQ(compared.rows_size(), 1);
  EXPECT_EQ(compared.rows(0).total_change_ns(), -std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(compared.rows(0).only_in_a());
}

TEST_F(SpanQueriesTest, CompareSessions_SessionPastMaxGroups_ResourceExhaustedNamingTheKey) {
  v1::CompareSessionsRequest request;
  request.set_session_a(kSession);
  request.set_session_b(kSession);
  request.set_by(v1::GROUP_BY_TAG);
  v1::CompareSessionsResponse response;
  const Status refused = CompareSessions(
      store_.reader(), request,
      QueryLimits{.max_groups = 1, .max_exact_durations = UINT64_MAX, .second_thread = {}},
      &response);
  EXPECT_EQ(refused.code(), Status::Code::kResourceExhausted) << refused.message();
  EXPECT_NE(refused.message().find("session " + std::to_string(kSession) +
                                   ": more than 1 groups, the cap max_query_groups is 1"),
            std::string::npos)
      << refused.message();
}

// CompareSessions over two small sessions written for it: an op-by-op run
// (a) and a fused one (b).
class CompareSessionsTest : public ::testing::Test {
 protected:
  static constexpr SessionId kA = 10;
  static constexpr SessionId kB = 11;

  // `count` spans of `name` (tag `name` + "_t") lasting `duration_ns`, the
  // last `not_ok` of them incomplete.
  void Add(std::vector<Span>* spans, const std::string& name, int count, uint64_t duration_ns,
           int not_ok = 0) {
    for (int i = 0; i < count; ++i) {
      const bool ok = i < count - not_ok;
      Span s = testing::MakeSpan(
          spans->size() + 1, kT0 + static_cast<int64_t>(spans->size()) * 1000, store_.Intern(name),
          duration_ns, ok ? SpanStatus::kOk : SpanStatus::kIncomplete);
      s.tag = store_.Intern(name + "_t");
      s.srcloc = 0;
      s.device = static_cast<uint16_t>(i % 2);  // two aggregate rows per name
      spans->push_back(s);
    }
  }

  void SetUp() override {
    std::vector<Span> a;
    Add(&a, "matmul", 10, 1000);
    Add(&a, "softmax", 5, 200);
    Add(&a, "bias_add", 4, 50);
    std::vector<Span> b;
    Add(&b, "matmul", 10, 600);
    Add(&b, "softmax", 6, 200, 1);
    Add(&b, "fused_matmul_bias", 3, 70);
    store_.AddSession(MakeSession(kA), std::move(a));
    store_.AddSession(MakeSession(kB), std::move(b));
  }

  v1::CompareSessionsResponse Compare(v1::GroupBy by) {
    v1::CompareSessionsRequest request;
    request.set_session_a(kA);
    request.set_session_b(kB);
    request.set_by(by);
    v1::CompareSessionsResponse response;
    const Status status = CompareSessions(store_.reader(), request, {}, &response);
    EXPECT_TRUE(status.ok()) << status.message();
    return response;
  }

  ApiTestStore store_;
};

TEST_F(CompareSessionsTest, ByName_CountsTotalsMeansRatiosAndOnlyInOne) {
  const v1::CompareSessionsResponse response = Compare(v1::GROUP_BY_NAME);
  EXPECT_EQ(response.total_a_ns(), 10'000u + 1000u + 200u);
  EXPECT_EQ(response.total_b_ns(), 6000u + 1000u + 210u);
  ASSERT_EQ(response.rows_size(), 4);
  // By |b - a|: matmul -4000, bias_add -200, fused +210... sorted: 4000, 210, 200, 0.
  const v1::Comparison& matmul = response.rows(0);
  EXPECT_EQ(matmul.key(), "matmul");
  EXPECT_EQ(matmul.count_a(), 10u);
  EXPECT_EQ(matmul.count_b(), 10u);
  EXPECT_EQ(matmul.total_a_ns(), 10'000u);
  EXPECT_EQ(matmul.total_b_ns(), 6000u);
  EXPECT_DOUBLE_EQ(matmul.mean_a_ns(), 1000.0);
  EXPECT_DOUBLE_EQ(matmul.mean_b_ns(), 600.0);
  EXPECT_DOUBLE_EQ(matmul.total_ratio(), 0.6);
  EXPECT_DOUBLE_EQ(matmul.mean_ratio(), 0.6);
  EXPECT_FALSE(matmul.only_in_a() || matmul.only_in_b());
  EXPECT_EQ(matmul.total_change_ns(), -4000);

  const v1::Comparison& fused = response.rows(1);
  EXPECT_EQ(fused.key(), "fused_matmul_bias");
  EXPECT_TRUE(fused.only_in_b());
  EXPECT_FALSE(fused.only_in_a());
  EXPECT_EQ(fused.count_a(), 0u);
  EXPECT_EQ(fused.total_b_ns(), 210u);
  EXPECT_DOUBLE_EQ(fused.mean_b_ns(), 70.0);
  EXPECT_EQ(fused.total_ratio(), 0.0);
  EXPECT_EQ(fused.mean_ratio(), 0.0);
  EXPECT_EQ(fused.total_change_ns(), 210);

  const v1::Comparison& bias = response.rows(2);
  EXPECT_EQ(bias.key(), "bias_add");
  EXPECT_TRUE(bias.only_in_a());
  EXPECT_EQ(bias.total_change_ns(), -200);
  EXPECT_EQ(bias.total_ratio(), 0.0);

  const v1::Comparison& softmax = response.rows(3);
  EXPECT_EQ(softmax.key(), "softmax");
  EXPECT_EQ(softmax.count_a(), 5u);
  EXPECT_EQ(softmax.count_b(), 6u) << "the incomplete span counts";
  EXPECT_DOUBLE_EQ(softmax.mean_b_ns(), 200.0) << "means are over OK spans";
  EXPECT_DOUBLE_EQ(softmax.total_ratio(), 1.0);
  EXPECT_EQ(softmax.total_change_ns(), 0);
}

TEST_F(CompareSessionsTest, ByTag_KeysAreTags) {
  const v1::CompareSessionsResponse response = Compare(v1::GROUP_BY_TAG);
  std::set<std::string> keys;
  for (const v1::Comparison& row : response.rows()) keys.insert(row.key());
  EXPECT_EQ(keys,
            (std::set<std::string>{"matmul_t", "softmax_t", "bias_add_t", "fused_matmul_bias_t"}));
}

TEST_F(CompareSessionsTest, UnspecifiedGrouping_IsByName) {
  const v1::CompareSessionsResponse response = Compare(v1::GROUP_BY_UNSPECIFIED);
  ASSERT_GT(response.rows_size(), 0);
  EXPECT_EQ(response.rows(0).key(), "matmul");
}

}  // namespace
}  // namespace optrace::daemon
