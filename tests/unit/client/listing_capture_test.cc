// Source listings in this very process (client-lib/src/listing_capture.cc):
// the first interning of a location makes the reader thread ship the lines
// around it, read back from the process's own segment through the real
// reader (reader/listing_table_reader.cc); registered listings; files it
// cannot read counted as refused; hostile entries counted by the reader.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fake_producer.h"
#include "optrace/optrace.h"
#include "optrace/optrace.hpp"
#include "optrace/reader/listing_table_reader.h"
#include "own_segment_test.h"
#include "temp_folder.h"

namespace optrace {
namespace {

using namespace std::chrono_literals;

// "line N" for N in [first, last], '\n'-separated.
std::string Lines(int first, int last) {
  std::string text;
  for (int n = first; n <= last; ++n) {
    if (n > first) text += "\n";
    text += "line " + std::to_string(n);
  }
  return text;
}

class ListingCaptureTest : public testing::OwnSegmentTest {
 protected:
  void SetUp() override {
    OwnSegmentTest::SetUp();
    listings_ = std::make_unique<reader::ListingTableReader>(*segment_);
    AwaitListings(0);  // start after what earlier tests published
  }

  // Writes lines 1..`count` ("line N") to a new file of the test's folder.
  std::string WriteSource(const std::string& name, int count) {
    const std::string path = folder_.path() + "/" + name;
    std::ofstream(path) << Lines(1, count) << "\n";
    return path;
  }

  // The listings published since the last call, once `count` more came
  // (or 5 s passed: the reader thread ships them in the background).
  std::vector<reader::PublishedListing> AwaitListings(size_t count) {
    std::vector<reader::PublishedListing> got;
    for (auto deadline = std::chrono::steady_clock::now() + 5s;;) {
      const auto fields = segment_->ReadProducerFields();
      EXPECT_TRUE(fields.has_value());
      if (!fields) break;
      for (auto& l : listings_->ReadNew(fields->listing_count, fields->string_count, &stats_)) {
        got.push_back(std::move(l));
      }
      if (got.size() >= count || std::chrono::steady_clock::now() > deadline) break;
      std::this_thread::sleep_for(5ms);
    }
    return got;
  }

  uint64_t Refused() { return segment_->ReadProducerFields()->listings_refused; }

  testing::TempFolder folder_;
  std::unique_ptr<reader::ListingTableReader> listings_;
};

TEST_F(ListingCaptureTest, LocationInALargeFile_TenLinesEitherSide) {
  const std::string path = WriteSource("large.py", 200);
  uint32_t id = 0;
  ASSERT_EQ(optrace_intern_location(path.c_str(), 50, &id), 0);
  const auto got = AwaitListings(1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(Text(got[0].file_id), path);
  EXPECT_EQ(got[0].first_line, 40u);
  EXPECT_EQ(got[0].text, Lines(40, 60));
  EXPECT_FALSE(got[0].registered);
  EXPECT_EQ(stats_.Violations(), 0u);
}

TEST_F(ListingCaptureTest, SmallFile_Whole_OncePerFileAndLocation) {
  const std::string path = WriteSource("small.py", 30);
  uint32_t a = 0, b = 0, again = 0;
  ASSERT_EQ(optrace_intern_location(path.c_str(), 3, &a), 0);
  ASSERT_EQ(optrace_intern_location(path.c_str(), 3, &again), 0);
  ASSERT_EQ(optrace_intern_location(path.c_str(), 25, &b), 0);
  EXPECT_EQ(a, again);
  const auto got = AwaitListings(1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].first_line, 1u);
  EXPECT_EQ(got[0].text, Lines(1, 30));
  // The second location lies in the whole file kept already.
  std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(AwaitListings(0).empty());
}

TEST_F(ListingCaptureTest, FileChangedAfterItsFirstUse_TheListingIsAsItRan) {
  const std::string path = WriteSource("changes.py", 100);
  uint32_t id = 0;
  ASSERT_EQ(optrace_intern_location(path.c_str(), 70, &id), 0);
  const auto got = AwaitListings(1);
  std::ofstream(path) << "rewritten\n";
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].text, Lines(60, 80));
}

TEST_F(ListingCaptureTest, ForkChild_ItsOwnSegmentHasTheParentsListings) {
  const std::string path = WriteSource("forked.py", 100);
  uint32_t id = 0;
  ASSERT_EQ(optrace_intern_location(path.c_str(), 50, &id), 0);
  ASSERT_EQ(AwaitListings(1).size(), 1u);
  const pid_t child = ::fork();
  if (child == 0) {
    // A segment of the child's own (its first level query), read as the
    // parent's is: the listing kept in memory was published into it again.
    // std::exit: the exit handler removes the child's segment.
    (void)GetLevel();
    auto own = testing::AttachOrFail(SegmentNameOrEmpty());
    if (own == nullptr || own->shm_name() == segment_->shm_name()) std::exit(2);
    const auto fields = own->ReadProducerFields();
    if (!fields) std::exit(3);
    reader::ReaderStats stats;
    reader::StringTableReader strings(*own);
    reader::ListingTableReader listings(*own);
    for (const auto& l : listings.ReadNew(fields->listing_count, fields->string_count, &stats)) {
      if (strings.Get(l.file_id, &stats) == path && l.first_line == 40 && l.text == Lines(40, 60)) {
        std::exit(0);
      }
    }
    std::exit(4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST_F(ListingCaptureTest, UnreadableOrNoSuchLine_CountedRefusedNoListing) {
  const uint64_t before = Refused();
  uint32_t id = 0;
  ASSERT_EQ(optrace_intern_location((folder_.path() + "/absent.py").c_str(), 1, &id), 0);
  ASSERT_EQ(optrace_intern_location(folder_.path().c_str(), 1, &id), 0);  // a directory
  const std::string path = WriteSource("short.py", 5);
  ASSERT_EQ(optrace_intern_location(path.c_str(), 6, &id), 0);  // past its end
  for (auto deadline = std::chrono::steady_clock::now() + 5s;
       Refused() < before + 3 && std::chrono::steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(Refused(), before + 3);
  EXPECT_TRUE(AwaitListings(0).empty());
}

TEST_F(ListingCaptureTest, Registered_WholeTextUnderItsName) {
  const std::string ir = "func @mlp() {\n  %0 = matmul\n  %1 = gelu %0\n}";
  ASSERT_EQ(optrace_register_listing("mlp.after-fusion.mlir", ir.data(), ir.size()), 0);
  EXPECT_EQ(RegisterListing("", "x"), -EINVAL);
  EXPECT_EQ(optrace_register_listing(nullptr, "x", 1), -EINVAL);
  const auto got = AwaitListings(1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(Text(got[0].file_id), "mlp.after-fusion.mlir");
  EXPECT_EQ(got[0].first_line, 1u);
  EXPECT_TRUE(got[0].registered);
  EXPECT_EQ(got[0].text, ir);
}

TEST_F(ListingCaptureTest, TabsAndControlBytes_MadePrintable) {
  const std::string text =
      "a\tb\r\nc\x01"
      "d";
  ASSERT_EQ(optrace_register_listing("tabs.txt", text.data(), text.size()), 0);
  const auto got = AwaitListings(1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].text, "a       b\nc?d");
}

// Entries a hostile producer writes by hand: outside the blob, an
// unpublished file name, line 0. Each is skipped and counted.
TEST(ListingTableReaderTest, HostileEntries_SkippedAndCounted) {
  testing::FakeProducer producer(1, 64);
  ASSERT_TRUE(producer.ok());
  const uint32_t file = producer.Intern("model.py");
  abi::SegmentHeader& h = producer.header();
  ASSERT_GT(h.listing_slots, 4u);
  std::memcpy(producer.segment().listing_blob(), "ok", 2);
  abi::ListingEntry* entries = producer.segment().listing_entries();
  entries[0] = {file, 1, 0, 2, 0, 0};
  entries[1] = {file, 1, h.listing_blob_bytes - 1, 2, 0, 0};  // past the blob's end
  entries[2] = {file + 100, 1, 0, 2, 0, 0};                   // no such string
  entries[3] = {file, 0, 0, 2, 0, 0};                         // line 0
  entries[4] = {file, 7, 0, 2, abi::kListingRegistered, 0};
  h.listing_count.store(5, std::memory_order_release);
  auto segment = testing::AttachOrFail(producer.name());
  ASSERT_NE(segment, nullptr);
  const auto fields = segment->ReadProducerFields();
  ASSERT_TRUE(fields.has_value());
  reader::ReaderStats stats;
  reader::ListingTableReader reader(*segment);
  const auto got = reader.ReadNew(fields->listing_count, fields->string_count, &stats);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].text, "ok");
  EXPECT_EQ(got[1].first_line, 7u);
  EXPECT_TRUE(got[1].registered);
  EXPECT_EQ(stats.bad_listing_entries, 3u);
  EXPECT_TRUE(reader.ReadNew(fields->listing_count, fields->string_count, &stats).empty());
}

}  // namespace
}  // namespace optrace
