// Started NVTX ranges waiting for their end, on any thread.
#include "nvtx/async_ranges.h"

#include <gtest/gtest.h>

#include <thread>

namespace optrace::nvtx {
namespace {

TEST(AsyncRangesTest, OpenThenTakeOnAnotherThread_NamesReturnedOnce) {
  instrument::LossCounter untracked("test.untracked");
  AsyncRanges ranges(64, untracked);
  ranges.Open(42, {7, 8});
  AsyncRangeNames names;
  bool taken = false;
  std::thread([&] { taken = ranges.Take(42, &names); }).join();
  EXPECT_TRUE(taken);
  EXPECT_EQ(names.name_id, 7u);
  EXPECT_EQ(names.tag_id, 8u);
  EXPECT_FALSE(ranges.Take(42, &names)) << "a second end of the same range";
}

TEST(AsyncRangesTest, TakeOfIdNeverOpened_Refused) {
  instrument::LossCounter untracked("test.untracked");
  AsyncRanges ranges(64, untracked);
  AsyncRangeNames names;
  EXPECT_FALSE(ranges.Take(12345, &names));
}

TEST(AsyncRangesTest, MoreOpenThanMax_ExtraOnesUntrackedAndCounted) {
  instrument::LossCounter untracked("test.untracked");
  AsyncRanges ranges(16, untracked);  // one per shard
  // Ids 16 apart land in the same shard.
  ranges.Open(16, {1, 0});
  ranges.Open(32, {2, 0});
  EXPECT_EQ(untracked.value(), 1u);
  AsyncRangeNames names;
  EXPECT_TRUE(ranges.Take(16, &names));
  EXPECT_FALSE(ranges.Take(32, &names));
}

}  // namespace
}  // namespace optrace::nvtx
