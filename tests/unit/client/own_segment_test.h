// A test fixture that reads this very process's producer segment through
// the real reader: tracing at level trace during each test, drained empty
// before it starts.
#ifndef OPTRACE_TESTS_UNIT_CLIENT_OWN_SEGMENT_TEST_H_
#define OPTRACE_TESTS_UNIT_CLIENT_OWN_SEGMENT_TEST_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "optrace/optrace.hpp"
#include "optrace/reader/string_table_reader.h"
#include "segment_reading.h"

namespace optrace::testing {

class OwnSegmentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SetLevel(Level::kTrace);
    segment_ = AttachOrFail(SegmentNameOrEmpty());
    ASSERT_NE(segment_, nullptr);
    drainer_ = std::make_unique<reader::SegmentDrainer>(*segment_);
    strings_ = std::make_unique<reader::StringTableReader>(*segment_);
    Drain();  // start from an empty view
  }
  void TearDown() override { SetLevel(Level::kOff); }

  // The events published since the last call.
  std::vector<abi::OpEvent> Drain() {
    return DrainAll(*drainer_, reader::DrainMode::kLive, &stats_);
  }
  // The text of a string id of this segment.
  std::string Text(uint32_t id) { return strings_->Get(id, &stats_); }

  reader::ReaderStats stats_;
  std::unique_ptr<reader::AttachedSegment> segment_;
  std::unique_ptr<reader::SegmentDrainer> drainer_;
  std::unique_ptr<reader::StringTableReader> strings_;
};

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_UNIT_CLIENT_OWN_SEGMENT_TEST_H_
