// The choice of pages to trim: oldest first, towards the goal, never the
// newest page nor a page of an untouchable (kept) range, within the budget.
#include "storage/trim_choice.h"

#include <gtest/gtest.h>

#include <vector>

namespace optrace::daemon {
namespace {

// Pages 1..count, page i spanning [10 i, 10 i + 5], 100 bytes each.
std::vector<PageExtent> Pages(uint64_t count) {
  std::vector<PageExtent> pages;
  for (uint64_t i = 1; i <= count; ++i) {
    const auto start = static_cast<int64_t>(10 * i);
    pages.push_back({.id = i,
                     .first_start_ns = start,
                     .last_start_ns = start + 5,
                     .span_count = 1,
                     .bytes = 100});
  }
  return pages;
}

std::vector<uint64_t> Ids(const TrimChoice& choice) {
  std::vector<uint64_t> ids;
  for (const PageExtent& page : choice.pages) ids.push_back(page.id);
  return ids;
}

TEST(TrimChoiceTest, ByTime_PagesBeforeCutoff_ChosenOldestFirst) {
  const std::vector<PageExtent> pages = Pages(5);
  EXPECT_EQ(Ids(ChoosePagesToTrim(pages, 500, 55, {.drop_before_ns = 36}, {}, 100)),
            (std::vector<uint64_t>{1, 2, 3}));
}

TEST(TrimChoiceTest, ByBytes_AboveMax_ChosenUntilWithin) {
  const std::vector<PageExtent> pages = Pages(5);
  EXPECT_EQ(Ids(ChoosePagesToTrim(pages, 500, 55, {.max_bytes = 250}, {}, 100)),
            (std::vector<uint64_t>{1, 2, 3}));
}

TEST(TrimChoiceTest, Goal_ZeroBytes_NewestPageNeverChosen) {
  const std::vector<PageExtent> pages = Pages(5);
  EXPECT_EQ(Ids(ChoosePagesToTrim(pages, 500, 55, {.max_bytes = 0}, {}, 100)),
            (std::vector<uint64_t>{1, 2, 3, 4}));
}

TEST(TrimChoiceTest, Budget_FewerThanDue_StopsAtBudget) {
  const std::vector<PageExtent> pages = Pages(5);
  EXPECT_EQ(Ids(ChoosePagesToTrim(pages, 500, 55, {.max_bytes = 0}, {}, 2)),
            (std::vector<uint64_t>{1, 2}));
}

TEST(TrimChoiceTest, Untouchable_OverlappingPage_PassedOverAndStillCounted) {
  const std::vector<PageExtent> pages = Pages(5);
  const TimeRange kept[] = {{.first_ns = 24, .last_ns = 26}};
  // Page 2 ([20, 25]) is kept; its 100 bytes still count, so page 4 goes
  // to reach 200 bytes.
  const TrimChoice choice = ChoosePagesToTrim(pages, 500, 55, {.max_bytes = 200}, kept, 100);
  EXPECT_EQ(Ids(choice), (std::vector<uint64_t>{1, 3, 4}));
  EXPECT_EQ(choice.passed_over, 1u);
}

TEST(TrimChoiceTest, Untouchable_WholeLookKept_NothingChosenAllPassedOver) {
  const std::vector<PageExtent> pages = Pages(5);
  const TimeRange kept[] = {{.first_ns = 0, .last_ns = 31}};
  const TrimChoice choice =
      ChoosePagesToTrim(std::span(pages).first(3), 500, 55, {.max_bytes = 0}, kept, 3);
  EXPECT_TRUE(choice.pages.empty());
  EXPECT_EQ(choice.passed_over, 3u);
}

TEST(TrimChoiceTest, WithinGoal_NothingChosen) {
  const std::vector<PageExtent> pages = Pages(5);
  EXPECT_TRUE(ChoosePagesToTrim(pages, 500, 55, {}, {}, 100).pages.empty());
}

}  // namespace
}  // namespace optrace::daemon
