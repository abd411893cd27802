// API call correlation ids to optrace op ids, across threads.
#include "nvtx/cupti/correlation_table.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace optrace::nvtx {
namespace {

TEST(CorrelationTableTest, PutThenFind_OpOfThatCall) {
  CorrelationTable table;
  table.Put(7, 1234);
  EXPECT_EQ(table.Find(7), 1234u);
  EXPECT_EQ(table.Find(8), 0u);
  EXPECT_EQ(table.Find(0), 0u);
}

TEST(CorrelationTableTest, IdOneTableAround_OlderIdForgotten) {
  CorrelationTable table;
  table.Put(7, 1);
  table.Put(7 + CorrelationTable::kSlots, 2);
  EXPECT_EQ(table.Find(7), 0u);
  EXPECT_EQ(table.Find(7 + CorrelationTable::kSlots), 2u);
}

TEST(CorrelationTableTest, WritersAndReaderRacing_ReaderNeverGetsAnotherCallsOp) {
  CorrelationTable table;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> mismatches{0};
  // Writers put op = id * 3 for ids that collide in the same few slots.
  std::vector<std::thread> writers;
  for (uint32_t w = 0; w < 2; ++w) {
    writers.emplace_back([&, w] {
      for (uint32_t round = 0; round < 20000; ++round) {
        const uint32_t id = 1 + (round % 4) + (w + 2 * round) * CorrelationTable::kSlots;
        table.Put(id, uint64_t{id} * 3);
      }
    });
  }
  std::thread reader([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      for (uint32_t round = 0; round < 40000; round += 97) {
        for (uint32_t w = 0; w < 2; ++w) {
          const uint32_t id = 1 + (round % 4) + (w + 2 * round) * CorrelationTable::kSlots;
          const uint64_t op = table.Find(id);
          if (op != 0 && op != uint64_t{id} * 3) mismatches.fetch_add(1);
        }
      }
    }
  });
  for (auto& w : writers) w.join();
  stop = true;
  reader.join();
  EXPECT_EQ(mismatches.load(), 0u);
}

}  // namespace
}  // namespace optrace::nvtx
