// The live page's thinning: the first max_items items of a period are
// kept in order, the rest only counted, and every item is counted once.
#include "ui/live_thinner.h"

#include <gtest/gtest.h>

#include <string>

namespace optrace::cli {
namespace {

v1::TailResponse Event(uint64_t op_id) {
  v1::TailResponse item;
  item.mutable_event()->set_op_id(op_id);
  item.mutable_event()->set_name("op" + std::to_string(op_id));
  return item;
}

v1::TailResponse Span(uint64_t op_id) {
  v1::TailResponse item;
  item.mutable_span()->set_op_id(op_id);
  return item;
}

v1::TailResponse Lag(uint64_t skipped) {
  v1::TailResponse item;
  item.mutable_lag()->set_skipped(skipped);
  return item;
}

TEST(LiveThinnerTest, UnderTheBound_EveryItemKeptInOrder) {
  LiveThinner thinner(4);
  thinner.Offer(Event(1));
  thinner.Offer(Span(2));
  thinner.Offer(Event(3));
  const LiveBatch batch = thinner.Take();
  ASSERT_EQ(batch.items.size(), 3u);
  EXPECT_EQ(batch.items[0].event().op_id(), 1u);
  EXPECT_EQ(batch.items[1].span().op_id(), 2u);
  EXPECT_EQ(batch.items[2].event().op_id(), 3u);
  EXPECT_EQ(batch.thinned, 0u);
  EXPECT_FALSE(batch.empty());
  EXPECT_EQ(batch.totals.received, 3u);
  EXPECT_EQ(batch.totals.forwarded, 3u);
}

TEST(LiveThinnerTest, OverTheBound_FirstItemsKeptRestCounted) {
  LiveThinner thinner(3);
  for (uint64_t i = 1; i <= 10; ++i) thinner.Offer(Event(i));
  const LiveBatch batch = thinner.Take();
  ASSERT_EQ(batch.items.size(), 3u);
  EXPECT_EQ(batch.items[0].event().op_id(), 1u);
  EXPECT_EQ(batch.items[2].event().op_id(), 3u);
  EXPECT_EQ(batch.thinned, 7u);
  EXPECT_EQ(batch.totals.received, 10u);
  EXPECT_EQ(batch.totals.forwarded, 3u);
  EXPECT_EQ(batch.totals.thinned, 7u);
}

TEST(LiveThinnerTest, Take_StartsANewPeriodAndTotalsCarryOn) {
  LiveThinner thinner(2);
  for (uint64_t i = 1; i <= 5; ++i) thinner.Offer(Event(i));
  const LiveBatch first = thinner.Take();
  EXPECT_EQ(first.thinned, 3u);
  for (uint64_t i = 6; i <= 8; ++i) thinner.Offer(Event(i));
  const LiveBatch second = thinner.Take();
  ASSERT_EQ(second.items.size(), 2u) << "the new period has room again";
  EXPECT_EQ(second.items[0].event().op_id(), 6u);
  EXPECT_EQ(second.thinned, 1u);
  EXPECT_EQ(second.totals.received, 8u);
  EXPECT_EQ(second.totals.forwarded, 4u);
  EXPECT_EQ(second.totals.thinned, 4u);
  EXPECT_EQ(second.totals.received, second.totals.forwarded + second.totals.thinned);
  const LiveBatch third = thinner.Take();
  EXPECT_TRUE(third.empty());
  EXPECT_EQ(third.totals.received, 8u);
}

TEST(LiveThinnerTest, Lag_CountedApartNeverAnItem) {
  LiveThinner thinner(2);
  thinner.Offer(Event(1));
  thinner.Offer(Lag(500));
  thinner.Offer(Lag(20));
  const LiveBatch batch = thinner.Take();
  EXPECT_EQ(batch.items.size(), 1u);
  EXPECT_EQ(batch.skipped, 520u);
  EXPECT_EQ(batch.totals.skipped, 520u);
  EXPECT_EQ(batch.totals.received, 1u);
  LiveThinner lag_only(2);
  lag_only.Offer(Lag(1));
  EXPECT_FALSE(lag_only.Take().empty()) << "a period with only a lag still has news";
}

TEST(LiveThinnerTest, Malicious_NestedBatchOrEmptyItem_Ignored) {
  LiveThinner thinner(2);
  v1::TailResponse nested;
  *nested.mutable_batch()->add_items() = Event(1);
  thinner.Offer(nested);
  thinner.Offer(v1::TailResponse());
  const LiveBatch batch = thinner.Take();
  EXPECT_TRUE(batch.empty());
  EXPECT_EQ(batch.totals.received, 0u);
}

TEST(LiveThinnerTest, ManyPeriodsAtHighRate_HeldItemsNeverPastTheBound) {
  LiveThinner thinner(200);
  uint64_t op = 0;
  for (int period = 0; period < 50; ++period) {
    for (int i = 0; i < 10'000; ++i) thinner.Offer(Event(++op));
    const LiveBatch batch = thinner.Take();
    ASSERT_EQ(batch.items.size(), 200u);
    ASSERT_EQ(batch.thinned, 9'800u);
  }
  const LiveBatch last = thinner.Take();
  EXPECT_EQ(last.totals.received, 500'000u);
  EXPECT_EQ(last.totals.forwarded, 10'000u);
  EXPECT_EQ(last.totals.thinned, 490'000u);
}

}  // namespace
}  // namespace optrace::cli
