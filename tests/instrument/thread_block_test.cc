// Per-thread blocks of the instrumentation libraries.
#include "instrument/thread_block.h"

#include <gtest/gtest.h>

#include <thread>

namespace optrace::instrument {
namespace {

struct Counts {
  int values[16];
};

TEST(ThreadBlockTest, TwoThreads_EachItsOwnZeroedBlockStableAcrossCalls) {
  Counts* main_block = ThreadBlock<Counts>::Get();
  ASSERT_NE(main_block, nullptr);
  EXPECT_EQ(ThreadBlock<Counts>::Get(), main_block);
  main_block->values[3] = 7;
  Counts* other_block = nullptr;
  int other_value = -1;
  std::thread([&] {
    other_block = ThreadBlock<Counts>::Get();
    other_value = other_block->values[3];
  }).join();
  EXPECT_NE(other_block, main_block);
  EXPECT_EQ(other_value, 0);
  EXPECT_EQ(main_block->values[3], 7);
}

TEST(ThreadBlockTest, ThreadExited_NextThreadStartsFromZero) {
  std::thread([] { ThreadBlock<Counts>::Get()->values[0] = 99; }).join();
  int value = -1;
  std::thread([&] { value = ThreadBlock<Counts>::Get()->values[0]; }).join();
  EXPECT_EQ(value, 0);
}

}  // namespace
}  // namespace optrace::instrument
