// The latency trigger: a span of a rule's name (and tag) slower than its
// threshold keeps keep_before before its start to keep_after after its
// end; faster spans, other names, another tag and names not yet in the
// dictionary keep nothing; a burst of slow ops is one request.
#include "storage/latency_keep.h"

#include <gtest/gtest.h>

#include "store_test_data.h"

namespace optrace::daemon {
namespace {

using testing::MakeSpan;

constexpr int64_t kMs = 1'000'000;

LatencyKeepRules Rules() {
  LatencyKeepRules rules({{.name = "step", .tag = "", .slower_than_ns = 50 * kMs},
                          {.name = "matmul", .tag = "big", .slower_than_ns = 5 * kMs}},
                         30'000 * kMs, 10'000 * kMs);
  const std::pair<StringId, std::string> strings[] = {
      {1, "step"}, {2, "matmul"}, {3, "big"}, {4, "small"}};
  rules.NoteStrings(strings);
  return rules;
}

StoreBatch Batch(std::vector<Span> spans) {
  StoreBatch batch;
  batch.spans = {{7, std::move(spans)}};
  return batch;
}

TEST(LatencyKeepTest, SlowerThanThreshold_WindowAroundTheOp) {
  LatencyKeepRules rules = Rules();
  const std::vector<KeepRequest> keeps =
      rules.Keeps(Batch({MakeSpan(1, 100'000 * kMs, 1, 60 * kMs)}));
  ASSERT_EQ(keeps.size(), 1u);
  EXPECT_EQ(keeps[0].session, 7u);
  EXPECT_EQ(keeps[0].first_ns, 70'000 * kMs);
  EXPECT_EQ(keeps[0].last_ns, 110'060 * kMs);
  EXPECT_EQ(keeps[0].reason, "slow: step");
}

TEST(LatencyKeepTest, FastOtherNameOrOtherTag_NoKeep) {
  LatencyKeepRules rules = Rules();
  Span small = MakeSpan(3, 0, 2, 9 * kMs);
  small.tag = 4;
  Span untagged = MakeSpan(4, 0, 2, 9 * kMs);
  EXPECT_TRUE(
      rules
          .Keeps(Batch({MakeSpan(1, 0, 1, 50 * kMs), MakeSpan(2, 0, 9, 90 * kMs), small, untagged}))
          .empty());
  Span big = small;
  big.tag = 3;
  EXPECT_EQ(rules.Keeps(Batch({big})).size(), 1u);
}

TEST(LatencyKeepTest, NameNotInDictionary_NoKeepUntilNoted) {
  LatencyKeepRules rules({{.name = "late", .tag = "", .slower_than_ns = kMs}}, kMs, kMs);
  EXPECT_TRUE(rules.Keeps(Batch({MakeSpan(1, 0, 12, 5 * kMs)})).empty());
  const std::pair<StringId, std::string> late[] = {{12, "late"}};
  rules.NoteStrings(late);
  EXPECT_EQ(rules.Keeps(Batch({MakeSpan(1, 0, 12, 5 * kMs)})).size(), 1u);
}

TEST(LatencyKeepTest, BurstOfSlowOps_OneRequestCoveringThem) {
  LatencyKeepRules rules = Rules();
  const std::vector<KeepRequest> keeps = rules.Keeps(
      Batch({MakeSpan(1, 100'000 * kMs, 1, 60 * kMs), MakeSpan(2, 101'000 * kMs, 1, 60 * kMs),
             MakeSpan(3, 500'000 * kMs, 1, 60 * kMs)}));
  ASSERT_EQ(keeps.size(), 2u);
  EXPECT_EQ(keeps[0].first_ns, 70'000 * kMs);
  EXPECT_EQ(keeps[0].last_ns, 111'060 * kMs);
  EXPECT_EQ(keeps[1].first_ns, 470'000 * kMs);
}

TEST(LatencyKeepTest, NoRules_Empty) {
  LatencyKeepRules rules({}, kMs, kMs);
  EXPECT_TRUE(rules.empty());
  EXPECT_TRUE(rules.Keeps(Batch({MakeSpan(1, 0, 1, 60 * kMs)})).empty());
}

}  // namespace
}  // namespace optrace::daemon
