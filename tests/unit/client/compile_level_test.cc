// -DOPTRACE_COMPILE_LEVEL below trace compiles op tracing out entirely: the
// ops in compiled_out_ops.cc write nothing even with the live level at trace.
#include <gtest/gtest.h>

#include <thread>

#include "compiled_out_ops.h"
#include "optrace/optrace.hpp"
#include "segment_reading.h"

namespace optrace {
namespace {

TEST(CompileLevelTest, CeilingInfo_OpsCompiledOutMarksKept) {
  EXPECT_FALSE(testing::CompiledOutOpsEnabled());
  optrace::SetLevel(optrace::Level::kTrace);
  auto seg = testing::AttachOrFail(optrace::SegmentNameOrEmpty());
  ASSERT_NE(seg, nullptr);
  reader::SegmentDrainer drainer(*seg);
  reader::ReaderStats stats;
  testing::DrainAll(drainer, reader::DrainMode::kLive, &stats);
  uint64_t id = 99;
  std::thread([&] { id = testing::RunCompiledOutOpAndMark(); }).join();
  EXPECT_EQ(id, 0u);
  const auto events = testing::DrainAll(drainer, reader::DrainMode::kLive, &stats);
  ASSERT_EQ(events.size(), 1u) << "only the info-level mark";
  EXPECT_EQ(events[0].kind, static_cast<uint8_t>(abi::EventKind::kMark));
  optrace::SetLevel(optrace::Level::kOff);
}

TEST(CompileLevelTest, CeilingInfo_StepsCompiledOut_NothingWritten) {
  optrace::SetLevel(optrace::Level::kTrace);
  auto seg = testing::AttachOrFail(optrace::SegmentNameOrEmpty());
  ASSERT_NE(seg, nullptr);
  reader::SegmentDrainer drainer(*seg);
  reader::ReaderStats stats;
  testing::DrainAll(drainer, reader::DrainMode::kLive, &stats);
  uint64_t id = 99;
  std::thread([&] { id = testing::RunCompiledOutSteps(); }).join();
  EXPECT_EQ(id, 0u);
  EXPECT_TRUE(testing::DrainAll(drainer, reader::DrainMode::kLive, &stats).empty());
  optrace::SetLevel(optrace::Level::kOff);
}

}  // namespace
}  // namespace optrace
