// Bounded UTF-8 from narrow and wide NVTX messages.
#include "nvtx/utf8_text.h"

#include <gtest/gtest.h>

#include <string>

namespace optrace::nvtx {
namespace {

std::string Kept(const char* text, size_t max_bytes) {
  return std::string(text, BoundedUtf8Length(text, max_bytes).bytes);
}

std::string Wide(const wchar_t* text, size_t capacity, bool* truncated = nullptr) {
  std::string out(capacity, '\0');
  const BoundedLength kept = WideToUtf8(text, out.data(), capacity);
  if (truncated != nullptr) *truncated = kept.truncated;
  out.resize(kept.bytes);
  return out;
}

TEST(Utf8TextTest, ShortMessage_KeptWhole) {
  const BoundedLength kept = BoundedUtf8Length("matmul", 512);
  EXPECT_EQ(kept.bytes, 6u);
  EXPECT_FALSE(kept.truncated);
}

TEST(Utf8TextTest, MessageOfExactlyMaxBytes_NotTruncated) {
  const std::string text(16, 'x');
  const BoundedLength kept = BoundedUtf8Length(text.c_str(), 16);
  EXPECT_EQ(kept.bytes, 16u);
  EXPECT_FALSE(kept.truncated);
}

TEST(Utf8TextTest, LongMessage_CutAtMaxBytes) {
  const std::string text(100000, 'x');
  const BoundedLength kept = BoundedUtf8Length(text.c_str(), 512);
  EXPECT_EQ(kept.bytes, 512u);
  EXPECT_TRUE(kept.truncated);
}

TEST(Utf8TextTest, CutInsideTwoByteCharacter_CutBeforeIt) {
  // "ab" then U+00E9 (2 bytes): a cut at 3 would split it.
  EXPECT_EQ(Kept("ab\u00e9c", 3), "ab");
}

TEST(Utf8TextTest, CutInsideFourByteCharacter_CutBeforeIt) {
  EXPECT_EQ(Kept("a\U0001F600b", 3), "a");
  EXPECT_EQ(Kept("a\U0001F600b", 5), "a\U0001F600");
}

TEST(Utf8TextTest, Malicious_OnlyContinuationBytes_EmptyRatherThanSplit) {
  const char text[] = "\x80\x80\x80\x80\x80";
  const BoundedLength kept = BoundedUtf8Length(text, 3);
  EXPECT_EQ(kept.bytes, 0u);
  EXPECT_TRUE(kept.truncated);
}

TEST(Utf8TextTest, WideAsciiAndMultibyte_EncodedAsUtf8) {
  EXPECT_EQ(Wide(L"unicode_\u00fcn\u00ef_\u6f14\u7b97_\u2713", 512),
            "unicode_\u00fcn\u00ef_\u6f14\u7b97_\u2713");
  EXPECT_EQ(Wide(L"\U0001F600", 512), "\U0001F600");
}

TEST(Utf8TextTest, WideLongerThanCapacity_StopsBeforeCharacterThatDoesNotFit) {
  bool truncated = false;
  EXPECT_EQ(Wide(L"ab\u6f14", 4, &truncated), "ab");  // U+6F14 needs 3 bytes
  EXPECT_TRUE(truncated);
}

TEST(Utf8TextTest, Malicious_WideSurrogateAndOutOfRange_ReplacementCharacter) {
  const wchar_t text[] = {L'a', static_cast<wchar_t>(0xD800), static_cast<wchar_t>(0x110000), L'b',
                          L'\0'};
  EXPECT_EQ(Wide(text, 512), "a\uFFFD\uFFFDb");
}

}  // namespace
}  // namespace optrace::nvtx
