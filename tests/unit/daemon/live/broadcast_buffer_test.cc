#include "live/broadcast_buffer.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace optrace::daemon {
namespace {

LiveRecord RecordAt(uint64_t pos) {
  LiveRecord r;
  r.op_id = pos;
  r.parent_op_id = ~pos;
  r.ts_ns = static_cast<int64_t>(pos * 3);
  r.name = static_cast<StringId>(pos);
  return r;
}

// Every field derives from the position: a record mixing two writes fails.
bool Intact(const LiveRecord& r, uint64_t pos) {
  return r.op_id == pos && r.parent_op_id == ~pos && r.ts_ns == static_cast<int64_t>(pos * 3) &&
         r.name == static_cast<StringId>(pos);
}

TEST(BroadcastBufferTest, ReaderKeepsUp_EveryRecordInOrder) {
  BroadcastBuffer buffer(8);
  LiveRecord out[8];
  uint64_t cursor = 0;
  for (uint64_t round = 0; round < 5; ++round) {
    for (uint64_t i = 0; i < 5; ++i) buffer.Append(RecordAt(round * 5 + i));
    const auto span = buffer.Read(cursor, out, 8);
    EXPECT_EQ(span.first, cursor) << "nothing lost";
    ASSERT_EQ(span.count, 5u);
    for (size_t k = 0; k < span.count; ++k) EXPECT_TRUE(Intact(out[k], span.first + k));
    cursor = span.first + span.count;
  }
  EXPECT_EQ(buffer.Read(cursor, out, 8).count, 0u) << "nothing new";
}

TEST(BroadcastBufferTest, ReaderOvertaken_LostCountedExactlyAndNewestKept) {
  BroadcastBuffer buffer(8);
  for (uint64_t i = 0; i < 30; ++i) buffer.Append(RecordAt(i));
  LiveRecord out[8];
  const auto span = buffer.Read(3, out, 8);
  EXPECT_EQ(span.first, 22u) << "positions 3..21 were overwritten: 19 lost";
  ASSERT_EQ(span.count, 8u);
  for (size_t k = 0; k < span.count; ++k) EXPECT_TRUE(Intact(out[k], span.first + k));
}

TEST(BroadcastBufferTest, ReadFewerThanAvailable_RestReadNext) {
  BroadcastBuffer buffer(16);
  for (uint64_t i = 0; i < 10; ++i) buffer.Append(RecordAt(i));
  LiveRecord out[16];
  auto span = buffer.Read(0, out, 4);
  EXPECT_EQ(span.first, 0u);
  EXPECT_EQ(span.count, 4u);
  span = buffer.Read(4, out, 16);
  EXPECT_EQ(span.first, 4u);
  EXPECT_EQ(span.count, 6u);
  EXPECT_TRUE(Intact(out[5], 9));
}

// One writer far faster than the readers, which copy while it overwrites:
// each reader sees intact records in increasing positions, and what it got
// plus what it was told it lost is exactly what was published. Under
// ThreadSanitizer this checks the seqlock protocol itself.
TEST(BroadcastBufferTest, ConcurrentWriterAndReaders_IntactRecordsAndExactLossCounts) {
  BroadcastBuffer buffer(64);
  constexpr uint64_t kRecords = 200'000;
  std::atomic<bool> done{false};
  struct Tally {
    uint64_t got = 0, lost = 0, torn = 0, out_of_order = 0, end = 0;
  };
  std::vector<Tally> tallies(3);
  std::vector<std::thread> readers;
  for (Tally& t : tallies) {
    readers.emplace_back([&buffer, &done, &t] {
      LiveRecord out[16];
      uint64_t cursor = 0;
      while (true) {
        const bool last = done.load(std::memory_order_acquire);
        const auto span = buffer.Read(cursor, out, 16);
        if (span.first < cursor) ++t.out_of_order;
        t.lost += span.first - cursor;
        for (size_t k = 0; k < span.count; ++k) {
          if (!Intact(out[k], span.first + k)) ++t.torn;
        }
        t.got += span.count;
        cursor = span.first + span.count;
        if (last && span.count == 0) break;
      }
      t.end = cursor;
    });
  }
  for (uint64_t i = 0; i < kRecords; ++i) buffer.Append(RecordAt(i));
  done.store(true, std::memory_order_release);
  for (auto& r : readers) r.join();
  for (const Tally& t : tallies) {
    EXPECT_EQ(t.torn, 0u);
    EXPECT_EQ(t.out_of_order, 0u);
    EXPECT_EQ(t.end, kRecords);
    EXPECT_EQ(t.got + t.lost, kRecords) << "delivered + lost = published, exactly";
  }
}

}  // namespace
}  // namespace optrace::daemon
