// GetSource over a real database: locations parsed at their last ':', the
// listing whose range holds the line (the nearest middle among several),
// context trimmed to the listing, ops found by id (stored spans and open
// halves), and each missing piece named in its NOT_FOUND message.
#include "query/source_query.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api_test_store.h"
#include "store_test_data.h"

namespace optrace::daemon {
namespace {

using testing::ApiTestStore;
using testing::MakeSession;
using testing::MakeSpan;

constexpr SessionId kSession = 7;

// "line N" for each line from `first` to `last`, '\n'-separated.
std::string NumberedLines(uint32_t first, uint32_t last) {
  std::string text;
  for (uint32_t line = first; line <= last; ++line) text += "line " + std::to_string(line) + "\n";
  return text;
}

StoredListing Stored(uint32_t first_line, uint32_t line_count) {
  return {.file = "model.py",
          .first_line = first_line,
          .line_count = line_count,
          .registered = false,
          .text = NumberedLines(first_line, first_line + line_count - 1)};
}

TEST(ParseSourceLineTest, LastColon_SplitsFileAndDigits) {
  const std::optional<SourceLine> plain = ParseSourceLine("model.py:37");
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->file, "model.py");
  EXPECT_EQ(plain->line, 37u);
  const std::optional<SourceLine> colons = ParseSourceLine("C:/src/a:b.py:4294967295");
  ASSERT_TRUE(colons.has_value());
  EXPECT_EQ(colons->file, "C:/src/a:b.py");
  EXPECT_EQ(colons->line, 4294967295u);
}

TEST(ParseSourceLineTest, Malicious_NotFileColonLine_Refused) {
  for (const char* bad :
       {"", "model.py", "model.py:", ":37", "model.py:3x", "model.py:-3", "model.py: 3",
        "model.py:+3", "model.py:4294967296", "model.py:99999999999999999999999"}) {
    EXPECT_FALSE(ParseSourceLine(bad).has_value()) << bad;
  }
}

TEST(ChooseListingTest, SeveralHoldTheLine_NearestMiddleWins) {
  // 1-20 (middle 10.5), 30-50 (middle 40), 15-35 (middle 25).
  const std::vector<StoredListing> listings = {Stored(1, 20), Stored(30, 21), Stored(15, 21)};
  EXPECT_EQ(ChooseListing(listings, 5), &listings[0]);
  EXPECT_EQ(ChooseListing(listings, 17), &listings[0]) << "10.5 is nearer than 25";
  EXPECT_EQ(ChooseListing(listings, 19), &listings[2]) << "25 is nearer than 10.5";
  EXPECT_EQ(ChooseListing(listings, 32), &listings[2]) << "25 is nearer than 40";
  EXPECT_EQ(ChooseListing(listings, 45), &listings[1]);
  EXPECT_EQ(ChooseListing(listings, 51), nullptr);
  EXPECT_EQ(ChooseListing(listings, 0), nullptr);
  const std::vector<StoredListing> equal = {Stored(1, 10), Stored(1, 10)};
  EXPECT_EQ(ChooseListing(equal, 3), &equal[0]) << "equally near: the first stored";
  EXPECT_EQ(ChooseListing({}, 3), nullptr);
}

class SourceQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SessionRecord session = MakeSession(kSession);
    session.listings = {.shipped = 3, .refused = 1, .dropped = 0, .capped = 2};
    Span located = MakeSpan(123, 1000, store_.Intern("matmul"));
    located.srcloc = store_.Intern("model.py:37");
    Span unlocated = MakeSpan(124, 2000, store_.Intern("matmul"));
    Span elsewhere = MakeSpan(125, 3000, store_.Intern("matmul"));
    elsewhere.srcloc = store_.Intern("lib/other.py:9");
    store_.AddSession(session, {located, unlocated, elsewhere});
    store_.AddListings({{.session = kSession,
                         .file = "model.py",
                         .first_line = 30,
                         .registered = false,
                         .text = NumberedLines(30, 44)},
                        {.session = kSession,
                         .file = "model.py",
                         .first_line = 100,
                         .registered = false,
                         .text = NumberedLines(100, 110)},
                        {.session = kSession,
                         .file = "ir/dispatch_3.mlir",
                         .first_line = 1,
                         .registered = true,
                         .text = "func @f() {\n  return\n}"}});
  }

  Status Get(v1::GetSourceRequest request, v1::GetSourceResponse* response) {
    if (request.session_id() == 0) request.set_session_id(kSession);
    return GetSource(store_.reader(), request, response);
  }

  v1::GetSourceRequest AtOp(uint64_t op_id, uint32_t context = 0) {
    v1::GetSourceRequest request;
    request.set_op_id(op_id);
    request.set_context(context);
    return request;
  }

  v1::GetSourceRequest At(const std::string& location, uint32_t context = 0) {
    v1::GetSourceRequest request;
    request.set_source_location(location);
    request.set_context(context);
    return request;
  }

  ApiTestStore store_;
};

TEST_F(SourceQueryTest, ByOpId_ItsLocationsListingWhole) {
  v1::GetSourceResponse response;
  const Status status = Get(AtOp(123), &response);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(response.source_location(), "model.py:37");
  EXPECT_EQ(response.file(), "model.py");
  EXPECT_EQ(response.line(), 37u);
  EXPECT_EQ(response.first_line(), 30u);
  ASSERT_EQ(response.lines_size(), 15);
  EXPECT_EQ(response.lines(0), "line 30");
  EXPECT_EQ(response.lines(7), "line 37");
  EXPECT_FALSE(response.registered());
}

TEST_F(SourceQueryTest, Context_TrimmedToTheLinesAroundAndToTheListing) {
  v1::GetSourceResponse around;
  ASSERT_TRUE(Get(AtOp(123, 2), &around).ok());
  EXPECT_EQ(around.first_line(), 35u);
  EXPECT_EQ(std::vector<std::string>(around.lines().begin(), around.lines().end()),
            (std::vector<std::string>{"line 35", "line 36", "line 37", "line 38", "line 39"}));
  v1::GetSourceResponse at_start;
  ASSERT_TRUE(Get(At("model.py:31", 3), &at_start).ok());
  EXPECT_EQ(at_start.first_line(), 30u);
  EXPECT_EQ(at_start.lines_size(), 5) << "30 to 34: nothing before the listing's first line";
  v1::GetSourceResponse at_end;
  ASSERT_TRUE(Get(At("model.py:110", 100), &at_end).ok());
  EXPECT_EQ(at_end.first_line(), 100u);
  EXPECT_EQ(at_end.lines_size(), 11);
}

TEST_F(SourceQueryTest, ByLocation_RegisteredListingSaysSo) {
  v1::GetSourceResponse response;
  ASSERT_TRUE(Get(At("ir/dispatch_3.mlir:2"), &response).ok());
  EXPECT_TRUE(response.registered());
  EXPECT_EQ(response.lines_size(), 3);
  EXPECT_EQ(response.lines(1), "  return");
}

TEST_F(SourceQueryTest, Missing_NotFoundNamesWhatIsMissing) {
  const struct {
    v1::GetSourceRequest request;
    std::string message;
  } cases[] = {
      {AtOp(999), "session 7 has no op 999"},
      {AtOp(124), "op 124 of session 7 has no source location"},
      {AtOp(125),
       "session 7 has no listing of lib/other.py around line 9 (listings: 3 stored, "
       "1 refused, 0 dropped, 2 capped)"},
      {At("model.py:60"),
       "session 7 has no listing of model.py around line 60 (listings: 3 "
       "stored, 1 refused, 0 dropped, 2 capped; of model.py: lines 30-44, "
       "100-110)"},
  };
  for (const auto& c : cases) {
    v1::GetSourceResponse response;
    const Status status = Get(c.request, &response);
    EXPECT_EQ(status.code(), Status::Code::kNotFound) << c.message;
    EXPECT_EQ(status.message(), c.message);
  }
  v1::GetSourceRequest unknown = AtOp(123);
  unknown.set_session_id(8);
  v1::GetSourceResponse response;
  const Status status = Get(unknown, &response);
  EXPECT_EQ(status.code(), Status::Code::kNotFound);
  EXPECT_EQ(status.message(), "no session 8");
}

TEST_F(SourceQueryTest, Malicious_BadRequests_InvalidArgumentSayingWhatToFix) {
  v1::GetSourceRequest both = AtOp(123);
  both.set_source_location("model.py:37");
  const struct {
    v1::GetSourceRequest request;
    std::string expected;
  } cases[] = {
      {v1::GetSourceRequest(), "give op_id (an op of the session) or source_location"},
      {both, "not both"},
      {At("model.py"), "\"model.py\" is not a file:line location"},
      {At("model.py:3x"), "is not a file:line location"},
      {At(std::string(5000, 'a') + ":1"), "longer than 4096"},
  };
  for (const auto& c : cases) {
    v1::GetSourceResponse response;
    const Status status = Get(c.request, &response);
    EXPECT_EQ(status.code(), Status::Code::kInvalidArgument) << c.expected;
    EXPECT_NE(status.message().find(c.expected), std::string::npos) << status.message();
  }
}

}  // namespace
}  // namespace optrace::daemon
