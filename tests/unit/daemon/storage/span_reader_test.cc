// SpanReader: time-range scans over pages, early stop, reading while the
// writer commits, and damaged rows or pages reported as errors.
#include "storage/span_reader.h"

#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <optional>
#include <thread>

#include "storage/span_store.h"
#include "store_test_data.h"
#include "temp_folder.h"

namespace optrace::daemon {
namespace {

using testing::MakeSession;
using testing::OpenReader;
using testing::QueryColumn;
using testing::ReadSpans;
using testing::SpanRun;

class SpanReaderTest : public ::testing::Test {
 protected:
  // Writes `batches` to the database, one batch each, and closes the store.
  void Write(std::vector<StoreBatch> batches) {
    Result<std::unique_ptr<SpanStore>> store = SpanStore::Open({.db_path = path_});
    ASSERT_TRUE(store.ok()) << store.status().message();
    for (StoreBatch& batch : batches) ASSERT_TRUE(store.value()->Submit(std::move(batch)));
    ASSERT_TRUE(store.value()->Flush(20'000));
  }

  // Three pages of 1000 spans of session 1: starts 0..999 us, 1000..1999 us...
  std::vector<Span> WriteThreePages() {
    std::vector<Span> all;
    std::vector<StoreBatch> batches;
    for (uint64_t page = 0; page < 3; ++page) {
      std::vector<Span> spans =
          SpanRun(page * 1000 + 1, static_cast<int64_t>(page) * 1'000'000, 1000);
      all.insert(all.end(), spans.begin(), spans.end());
      StoreBatch batch;
      batch.sequence = page + 1;
      batch.spans = {{1, std::move(spans)}};
      batches.push_back(std::move(batch));
    }
    Write(std::move(batches));
    return all;
  }

  testing::TempFolder dir_;
  const std::string path_ = dir_.path() + "/trace.db";
};

TEST_F(SpanReaderTest, Open_MissingFile_NotFound) {
  Result<std::unique_ptr<SpanReader>> reader = SpanReader::Open(dir_.path() + "/absent.db");
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), Status::Code::kNotFound);
  EXPECT_NE(reader.status().message().find("absent.db"), std::string::npos);
}

TEST_F(SpanReaderTest, ForEachSpan_RangeAcrossPages_ExactlyTheSpansInRange) {
  const std::vector<Span> all = WriteThreePages();
  auto reader = OpenReader(path_);
  ASSERT_NE(reader, nullptr);
  const int64_t min = 700'000;
  const int64_t max = 2'100'000;
  std::vector<Span> expected;
  for (const Span& s : all) {
    if (s.start_ns >= min && s.start_ns <= max) expected.push_back(s);
  }
  EXPECT_EQ(ReadSpans(*reader, 1, min, max), expected);
  EXPECT_EQ(ReadSpans(*reader, 1), all);
  EXPECT_TRUE(ReadSpans(*reader, 1, 5'000'000, 6'000'000).empty());
  EXPECT_TRUE(ReadSpans(*reader, 2).empty()) << "another session";
}

TEST_F(SpanReaderTest, ForEachSpan_VisitorReturnsFalse_StopsAtOnce) {
  WriteThreePages();
  auto reader = OpenReader(path_);
  int visited = 0;
  ASSERT_TRUE(reader
                  ->ForEachSpan(1, 0, std::numeric_limits<int64_t>::max(),
                                [&](const Span&) { return ++visited < 1500; })
                  .ok());
  EXPECT_EQ(visited, 1500);
  // The statement was reset: the next scan starts from the beginning.
  EXPECT_EQ(ReadSpans(*reader, 1).size(), 3000u);
}

// Calls in a ScratchScope share one set of page buffers: each still sees
// exactly its own range, page after page and call after call, and so do
// calls after the scope (which make their own).
TEST_F(SpanReaderTest, ScratchScope_ManyCallsOneScope_EachExactlyItsRange) {
  const std::vector<Span> all = WriteThreePages();
  std::unique_ptr<SpanReader> reader = OpenReader(path_);
  ASSERT_NE(reader, nullptr);
  const auto expect_range = [&](int64_t lo, int64_t hi) {
    std::vector<uint64_t> want;
    for (const Span& span : all) {
      if (span.start_ns >= lo && span.start_ns <= hi) want.push_back(span.op_id);
    }
    std::vector<uint64_t> got;
    for (const Span& span : ReadSpans(*reader, 1, lo, hi)) got.push_back(span.op_id);
    EXPECT_EQ(got, want) << lo << ".." << hi;
  };
  {
    const SpanReader::ScratchScope scope(*reader);
    expect_range(0, 2'999'999);          // every page
    expect_range(1'500'000, 1'500'999);  // inside one page, after a bigger read
    expect_range(999'000, 2'000'999);    // across pages
    expect_range(0, 2'999'999);
  }
  expect_range(500'000, 2'500'000);
}

TEST_F(SpanReaderTest, ListSessions_SeveralSessions_NewestFirst) {
  StoreBatch batch;
  batch.sequence = 1;
  batch.sessions = {MakeSession(1, SessionState::kExited, 300, 400),
                    MakeSession(2, SessionState::kRunning, 500),
                    MakeSession(3, SessionState::kCrashed, 100, 200)};
  Write({batch});
  auto reader = OpenReader(path_);
  Result<std::vector<SessionRecord>> sessions = reader->ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status().message();
  ASSERT_EQ(sessions->size(), 3u);
  EXPECT_EQ(sessions.value()[0].id, 2u);
  EXPECT_EQ(sessions.value()[1].id, 1u);
  EXPECT_EQ(sessions.value()[2].id, 3u);
  EXPECT_EQ(sessions.value()[2], batch.sessions[2]);
  EXPECT_EQ(reader->GetSession(4).value(), std::nullopt);
}

TEST_F(SpanReaderTest, SumOfDropsExcept_EveryCounterSummedOverTheOthers) {
  StoreBatch batch;
  batch.sequence = 1;
  for (SessionId id = 1; id <= 4; ++id) {
    SessionRecord r = MakeSession(id, SessionState::kExited, 100 * id, 100 * id + 50);
    r.dropped_ring_full = id;
    r.dropped_no_ring = 10 * id;
    r.dropped_shed = 100 * id;
    r.dropped_daemon_restart = 1000 * id;
    r.dropped_invalid = 10'000 * id;
    r.strings_dropped = 100'000 * id;
    r.names_capped = 1'000'000 * id;
    r.events = 7;  // not a loss counter: not summed
    batch.sessions.push_back(r);
  }
  Write({batch});
  auto reader = OpenReader(path_);
  const SessionId except[] = {2, 4, 99};
  Result<SessionRecord> sums = reader->SumOfDropsExcept(except);
  ASSERT_TRUE(sums.ok()) << sums.status().message();
  SessionRecord expected;  // sessions 1 and 3
  for (const SessionRecord& r : {batch.sessions[0], batch.sessions[2]}) AddDrops(r, &expected);
  EXPECT_EQ(sums.value(), expected);
  Result<SessionRecord> all = reader->SumOfDropsExcept({});
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ(all->names_capped, 10'000'000u);
  EXPECT_EQ(all->dropped_ring_full, 10u);
  EXPECT_EQ(all->events, 0u);
}

TEST_F(SpanReaderTest, SessionsByState_CountsEachStateThatHasSessions) {
  StoreBatch batch;
  batch.sequence = 1;
  const SessionState states[] = {SessionState::kExited, SessionState::kCrashed,
                                 SessionState::kExited, SessionState::kExited};
  for (SessionId id = 1; id <= 4; ++id) {
    batch.sessions.push_back(MakeSession(id, states[id - 1], 100 * id, 100 * id + 50));
  }
  Write({batch});
  auto reader = OpenReader(path_);
  Result<std::map<std::string, uint64_t>> counts = reader->SessionsByState();
  ASSERT_TRUE(counts.ok()) << counts.status().message();
  EXPECT_EQ(counts.value(), (std::map<std::string, uint64_t>{{"crashed", 1}, {"exited", 3}}));
}

TEST_F(SpanReaderTest, ForEachSpan_WhileWriterCommits_EverySnapshotHoldsWholeBatches) {
  Result<std::unique_ptr<SpanStore>> store = SpanStore::Open({.db_path = path_});
  ASSERT_TRUE(store.ok()) << store.status().message();
  constexpr size_t kBatchSpans = 5000;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (uint64_t seq = 1; seq <= 60; ++seq) {
      StoreBatch batch;
      batch.sequence = seq;
      batch.spans = {
          {1, SpanRun(seq * kBatchSpans, static_cast<int64_t>(seq) * 10'000'000, kBatchSpans)}};
      while (!store.value()->Submit(batch)) std::this_thread::yield();
    }
    store.value()->Flush(20'000);
    done.store(true);
  });
  auto reader = OpenReader(path_);
  ASSERT_NE(reader, nullptr);
  int scans = 0;
  while (!done.load()) {
    EXPECT_EQ(ReadSpans(*reader, 1).size() % kBatchSpans, 0u);
    ++scans;
  }
  writer.join();
  EXPECT_EQ(ReadSpans(*reader, 1).size(), 60 * kBatchSpans);
  EXPECT_GT(scans, 0);
}

TEST_F(SpanReaderTest, Malicious_CorruptPageBlob_ErrorNamesPageNoCrash) {
  WriteThreePages();
  QueryColumn(path_, "UPDATE span_pages SET data = x'01ffffffff0f0000' WHERE id = 2");
  auto reader = OpenReader(path_);
  size_t visited = 0;
  const Status status = reader->ForEachSpan(1, 0, std::numeric_limits<int64_t>::max(),
                                            [&](const Span&) { return ++visited > 0; });
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(status.message().find("span page 2 of session 1"), std::string::npos)
      << status.message();
  EXPECT_EQ(visited, 1000u) << "the intact first page was visited";
}

TEST_F(SpanReaderTest, Malicious_PageRowCountDisagrees_Error) {
  WriteThreePages();
  QueryColumn(path_, "UPDATE span_pages SET span_count = 7 WHERE id = 1");
  auto reader = OpenReader(path_);
  const Status status = reader->ForEachSpan(1, 0, std::numeric_limits<int64_t>::max(),
                                            [](const Span&) { return true; });
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("holds 1000 spans, its row says 7"), std::string::npos)
      << status.message();
}

TEST_F(SpanReaderTest, Malicious_ValuesOutOfFieldRange_ErrorsNameColumn) {
  StoreBatch batch;
  batch.sequence = 1;
  batch.sessions = {MakeSession(1)};
  batch.instants = {{1, {Instant{.ts_ns = 1, .kind = 3}}}};
  batch.halves_opened = {{1, {testing::MakeHalf(1, 1)}}};
  batch.cursors = {{1, 0, 1}};
  Write({batch});
  QueryColumn(path_, "UPDATE instants SET kind = 300");
  QueryColumn(path_, "UPDATE sessions SET pid = -1");
  QueryColumn(path_, "UPDATE open_halves SET device = 70000");
  QueryColumn(path_, "UPDATE ring_cursors SET ring = -5");
  auto reader = OpenReader(path_);
  const Status instants = reader->ForEachInstant(1, [](const Instant&) { return true; });
  EXPECT_NE(instants.message().find("column kind: value 300 out of range"), std::string::npos)
      << instants.message();
  EXPECT_NE(reader->ListSessions().status().message().find("column pid: value -1"),
            std::string::npos);
  EXPECT_NE(reader->OpenHalves(1).status().message().find("column device: value 70000"),
            std::string::npos);
  EXPECT_NE(reader->RingCursors(1).status().message().find("ring -5 out of range"),
            std::string::npos);
}

TEST_F(SpanReaderTest, PagesAfter_MaxSpans_WholePagesInIdOrderAtLeastOne) {
  const std::vector<Span> all = WriteThreePages();
  auto reader = OpenReader(path_);
  Result<std::vector<StoredSpanPage>> two = reader->PagesAfter(0, 2500);
  ASSERT_TRUE(two.ok()) << two.status().message();
  ASSERT_EQ(two->size(), 2u) << "a third page would pass 2500 spans";
  EXPECT_EQ(two.value()[0].session, 1u);
  EXPECT_LT(two.value()[0].id, two.value()[1].id);
  EXPECT_EQ(two.value()[1].spans, std::vector<Span>(all.begin() + 1000, all.begin() + 2000));
  Result<std::vector<StoredSpanPage>> one = reader->PagesAfter(two.value()[1].id, 10);
  ASSERT_TRUE(one.ok()) << one.status().message();
  ASSERT_EQ(one->size(), 1u) << "a page larger than max_spans still comes whole";
  EXPECT_EQ(one.value()[0].spans.size(), 1000u);
  Result<std::vector<StoredSpanPage>> none = reader->PagesAfter(one.value()[0].id, 10);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_F(SpanReaderTest, SpanCountAfter_PageIds_SpansOfLaterPages) {
  WriteThreePages();
  auto reader = OpenReader(path_);
  const std::vector<std::string> ids = QueryColumn(path_, "SELECT id FROM span_pages ORDER BY id");
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(reader->SpanCountAfter(0).value(), 3000u);
  EXPECT_EQ(reader->SpanCountAfter(std::stoull(ids[0])).value(), 2000u);
  EXPECT_EQ(reader->SpanCountAfter(std::stoull(ids[2])).value(), 0u);
}

TEST_F(SpanReaderTest, Malicious_PagesAfterCorruptPage_ErrorNamesPage) {
  WriteThreePages();
  QueryColumn(path_, "UPDATE span_pages SET data = x'01ffffffff0f0000' WHERE id = 2");
  auto reader = OpenReader(path_);
  Result<std::vector<StoredSpanPage>> pages = reader->PagesAfter(0, 100'000);
  ASSERT_FALSE(pages.ok());
  EXPECT_NE(pages.status().message().find("span page 2"), std::string::npos)
      << pages.status().message();
}

}  // namespace
}  // namespace optrace::daemon
