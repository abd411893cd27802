// String uses: deleting a session removes the strings only it used, keeps
// those other sessions use, and a later use of a removed string's id puts
// its text back. The real writer, retention and SQLite file.
#include "storage/string_uses.h"

#include <gtest/gtest.h>

#include "storage/batch_writer.h"
#include "storage/page_trimmer.h"
#include "storage/retention.h"
#include "storage/schema.h"
#include "store_test_data.h"
#include "temp_folder.h"

namespace optrace::daemon {
namespace {

using testing::MakeSession;
using testing::QueryColumn;

constexpr int64_t kSecond = 1'000'000'000;

// An ok span of `session`'s kind with these strings.
Span SpanWith(uint64_t op_id, StringId name, StringId tag, StringId srcloc) {
  Span span = testing::MakeSpan(op_id, static_cast<int64_t>(op_id) * 1000);
  span.name = name;
  span.tag = tag;
  span.srcloc = srcloc;
  return span;
}

class StringUsesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = testing::OpenPreparedDb(path_);
    ASSERT_NE(db_, nullptr);
    testing::StoreWriter made = testing::OpenStoreWriter(*db_, std::chrono::milliseconds(0));
    ASSERT_NE(made.writer, nullptr);
    uses_ = std::move(made.uses);
    writer_ = std::move(made.writer);
    Result<std::unique_ptr<PageTrimmer>> trimmer = PageTrimmer::Create(*db_);
    ASSERT_TRUE(trimmer.ok()) << trimmer.status().message();
    trimmer_ = std::move(trimmer).value();
    Result<std::unique_ptr<Retention>> retention =
        Retention::Create(*db_, *trimmer_, *uses_, {.max_age_ns = 50 * kSecond});
    ASSERT_TRUE(retention.ok()) << retention.status().message();
    retention_ = std::move(retention).value();
  }

  // Writes `session`'s record and `spans`, adding `new_strings` to the
  // dictionary's table.
  void Write(const SessionRecord& session, std::vector<Span> spans,
             std::vector<std::pair<StringId, std::string>> new_strings = {}) {
    const Status written = TryWrite(session, std::move(spans), std::move(new_strings));
    ASSERT_TRUE(written.ok()) << written.message();
  }

  // Write's batch, with the writer's outcome.
  Status TryWrite(const SessionRecord& session, std::vector<Span> spans,
                  std::vector<std::pair<StringId, std::string>> new_strings = {}) {
    StoreBatch batch;
    batch.sequence = ++sequence_;
    batch.new_strings = std::move(new_strings);
    batch.sessions = {session};
    batch.spans = {{session.id, std::move(spans)}};
    return writer_->Write(batch);
  }

  // Retention's pass at `now_s`: the strings it removed.
  uint64_t StringsRemovedAt(int64_t now_s) {
    Result<RetentionPass> pass = retention_->Enforce(now_s * kSecond);
    EXPECT_TRUE(pass.ok()) << pass.status().message();
    return pass.ok() ? pass->strings_removed : 0;
  }

  std::vector<std::string> Strings() {
    return QueryColumn(path_, "SELECT id || '=' || text FROM strings ORDER BY id");
  }

  testing::TempFolder dir_;
  const std::string path_ = dir_.path() + "/trace.db";
  std::unique_ptr<SqliteConnection> db_;
  std::unique_ptr<StringUses> uses_;
  std::unique_ptr<BatchWriter> writer_;
  std::unique_ptr<PageTrimmer> trimmer_;
  std::unique_ptr<Retention> retention_;
  uint64_t sequence_ = 0;
};

TEST_F(StringUsesTest, SessionDeleted_StringsOnlyItUsedRemovedSharedOnesKept) {
  Write(MakeSession(1, SessionState::kExited, 10 * kSecond, 100 * kSecond),
        {SpanWith(1, 1, 2, 4), SpanWith(2, 1, 2, 4)},
        {{1, "only_one"}, {2, "shared"}, {3, "only_two"}, {4, "one.py:7"}});
  Write(MakeSession(2, SessionState::kExited, 20 * kSecond, 500 * kSecond), {SpanWith(3, 3, 2, 0)});
  EXPECT_EQ(StringsRemovedAt(200), 2u) << "session 1 (ended at 100 s) goes";
  EXPECT_EQ(Strings(), (std::vector<std::string>{"2=shared", "3=only_two"}));
  EXPECT_EQ(QueryColumn(path_, "SELECT count(*) FROM session_strings WHERE session_id = 1"),
            std::vector<std::string>{"0"});
  EXPECT_EQ(StringsRemovedAt(1000), 2u) << "session 2 goes, and with it the last use of 2";
  EXPECT_EQ(Strings(), std::vector<std::string>{});
  EXPECT_EQ(uses_->collected(), 4u);
}

TEST_F(StringUsesTest, RemovedIdUsedAgain_TextPutBackWithTheBatch) {
  Write(MakeSession(1, SessionState::kExited, 10 * kSecond, 100 * kSecond), {SpanWith(1, 1, 0, 0)},
        {{1, "matmul"}});
  ASSERT_EQ(StringsRemovedAt(200), 1u);
  ASSERT_EQ(Strings(), std::vector<std::string>{});
  // The dictionary still maps "matmul" to 1: a new session's batch uses the
  // id without adding the text.
  Write(MakeSession(2), {SpanWith(2, 1, 0, 0)});
  EXPECT_EQ(Strings(), std::vector<std::string>{"1=matmul"});
  EXPECT_EQ(uses_->collected(), 0u);
  EXPECT_EQ(QueryColumn(path_, "SELECT session_id FROM session_strings WHERE string_id = 1"),
            std::vector<std::string>{"2"});
  EXPECT_EQ(StringsRemovedAt(10'000), 0u) << "a running session's strings stay";
}

// A batch that fails after recording some of its uses (and putting back a
// removed text) rolls them back with it: written again, every use is
// recorded and the text is back, as if the failure had not happened.
TEST_F(StringUsesTest, BatchRolledBackMidway_WrittenAgain_EveryUseRecordedRemovedTextBack) {
  Write(MakeSession(1, SessionState::kExited, 10 * kSecond, 100 * kSecond), {SpanWith(1, 1, 0, 0)},
        {{1, "matmul"}});
  ASSERT_EQ(StringsRemovedAt(200), 1u);
  // The use of string 2 fails, after the use of 1 put "matmul" back.
  ASSERT_TRUE(db_->Exec("CREATE TEMP TRIGGER fail_use BEFORE INSERT ON session_strings "
                        "WHEN NEW.string_id = 2 BEGIN SELECT RAISE(ABORT, 'forced'); END")
                  .ok());
  const Status failed = TryWrite(MakeSession(2), {SpanWith(2, 1, 2, 0)}, {{2, "gelu"}});
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.message().find("forced"), std::string::npos) << failed.message();
  EXPECT_EQ(Strings(), std::vector<std::string>{}) << "rolled back: nothing put back";
  EXPECT_EQ(uses_->collected(), 1u) << "the removed text is still held";

  ASSERT_TRUE(db_->Exec("DROP TRIGGER fail_use").ok());
  Write(MakeSession(2), {SpanWith(2, 1, 2, 0)}, {{2, "gelu"}});
  EXPECT_EQ(Strings(), (std::vector<std::string>{"1=matmul", "2=gelu"}));
  EXPECT_EQ(QueryColumn(path_,
                        "SELECT string_id FROM session_strings WHERE session_id = 2 "
                        "ORDER BY string_id"),
            (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(uses_->collected(), 0u);
}

TEST_F(StringUsesTest, StringsOfADatabaseBeforeUsesWereRecorded_Kept) {
  // What the migration does to strings stored before version 13.
  ASSERT_TRUE(db_->Exec("INSERT INTO strings(id, text) VALUES(7, 'old')").ok());
  ASSERT_TRUE(db_->Exec("INSERT INTO session_strings VALUES(0, 7)").ok());
  Write(MakeSession(1, SessionState::kExited, 10 * kSecond, 100 * kSecond), {SpanWith(1, 7, 0, 0)});
  EXPECT_EQ(StringsRemovedAt(200), 0u);
  EXPECT_EQ(Strings(), std::vector<std::string>{"7=old"});
}

}  // namespace
}  // namespace optrace::daemon
