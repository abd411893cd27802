// Runtime keeps in this very process (client-lib/src/keep_api.cc):
// optrace_keep and optrace::Keep record one mark named optrace.keep at
// ERROR level tagged with the reason, read back from the process's own
// segment through the real reader: the default reason, a long one cut at
// a UTF-8 boundary, and nothing at level off.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "optrace/optrace.h"
#include "optrace/optrace.hpp"
#include "optrace/reader/string_table_reader.h"
#include "own_segment_test.h"

namespace optrace {
namespace {

constexpr auto kMark = static_cast<uint8_t>(abi::EventKind::kMark);

class KeepApiTest : public testing::OwnSegmentTest {
 protected:
  // The reasons of the keep marks recorded since the last call.
  std::vector<std::string> KeptReasons() {
    std::vector<std::string> reasons;
    for (const abi::OpEvent& e : Drain()) {
      EXPECT_EQ(e.kind, kMark);
      EXPECT_EQ(Text(e.name_id), kKeepName);
      EXPECT_EQ(e.level, static_cast<uint8_t>(Level::kError));
      reasons.push_back(Text(e.tag_id));
    }
    return reasons;
  }
};

TEST_F(KeepApiTest, Reason_OneErrorMarkNamedOptraceKeepTaggedWithIt) {
  EXPECT_EQ(optrace_keep("oom"), 0);
  Keep("nan in loss");
  EXPECT_EQ(KeptReasons(), (std::vector<std::string>{"oom", "nan in loss"}));
  EXPECT_EQ(stats_.Violations(), 0u);
}

TEST_F(KeepApiTest, NullOrEmptyReason_Keep) {
  EXPECT_EQ(optrace_keep(nullptr), 0);
  EXPECT_EQ(optrace_keep(""), 0);
  Keep();
  EXPECT_EQ(KeptReasons(), (std::vector<std::string>{"keep", "keep", "keep"}));
}

TEST_F(KeepApiTest, LongReason_CutToTheMaxAtACharacterBoundary) {
  const std::string fits(OPTRACE_KEEP_REASON_MAX, 'a');
  // 199 bytes and a two-byte character: byte 200 is inside it.
  const std::string straddles = std::string(OPTRACE_KEEP_REASON_MAX - 1, 'b') + "\xc3\xa9tail";
  EXPECT_EQ(optrace_keep(fits.c_str()), 0);
  EXPECT_EQ(optrace_keep((fits + "more").c_str()), 0);
  Keep(straddles);
  EXPECT_EQ(KeptReasons(), (std::vector<std::string>{fits, fits, straddles.substr(0, 199)}));
}

TEST_F(KeepApiTest, Malicious_UnterminatedLongReason_ReadsNoFurtherThanItKeeps) {
  // No NUL in the first OPTRACE_KEEP_REASON_MAX + 1 bytes: the call reads
  // those only (AddressSanitizer builds check the bound).
  auto buffer = std::make_unique<std::array<char, OPTRACE_KEEP_REASON_MAX + 1>>();
  buffer->fill('x');
  EXPECT_EQ(optrace_keep(buffer->data()), 0);
  EXPECT_EQ(KeptReasons(), (std::vector<std::string>{std::string(OPTRACE_KEEP_REASON_MAX, 'x')}));
}

TEST_F(KeepApiTest, LevelErrorRecordsOffDoesNot) {
  SetLevel(Level::kError);
  EXPECT_EQ(optrace_keep("at error"), 0);
  SetLevel(Level::kOff);
  EXPECT_EQ(optrace_keep("at off"), 0);
  Keep("at off too");
  EXPECT_EQ(KeptReasons(), (std::vector<std::string>{"at error"}));
}

}  // namespace
}  // namespace optrace
