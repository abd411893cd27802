// The span page codec: exact round trips of any values, compact pages for
// realistic spans, and hostile bytes that must be rejected, never trusted.
#include "storage/span_page_codec.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "store_test_data.h"

namespace optrace::daemon {
namespace {

using testing::MakeSpan;
using testing::RandomSpans;
using testing::SpanRun;

std::vector<Span> RoundTrip(const std::vector<Span>& spans) {
  Result<std::vector<Span>> decoded = span_page::Decode(span_page::Encode(spans));
  EXPECT_TRUE(decoded.ok()) << decoded.status().message();
  return decoded.ok() ? decoded.value() : std::vector<Span>{};
}

// The end of the varint that starts at byte `at` of `page`.
size_t VarintEnd(const std::string& page, size_t at) {
  while ((static_cast<uint8_t>(page[at]) & 0x80) != 0) ++at;
  return at + 1;
}

// The bytes of a page with `columns` columns in front of its first column:
// version, span count and the column lengths.
size_t HeaderBytes(const std::string& page, size_t columns = span_page::kColumnCount) {
  size_t at = 1;
  for (size_t varint = 0; varint < 1 + columns; ++varint) at = VarintEnd(page, at);
  return at;
}

// The version 3 page of the same spans: a version 4 page without its last
// column (children_ns) and that column's length.
std::string AsVersion3(const std::string& page) {
  constexpr size_t kVersion3Columns = span_page::kColumnCount - 1;
  const size_t lengths_end = HeaderBytes(page, kVersion3Columns);
  const size_t header_end = HeaderBytes(page);
  uint64_t last_length = 0;
  for (size_t at = header_end; at-- > lengths_end;) {
    last_length = (last_length << 7) | (static_cast<uint8_t>(page[at]) & 0x7f);
  }
  return "\x03" + page.substr(1, lengths_end - 1) +
         page.substr(header_end, page.size() - header_end - last_length);
}

// The version 2 page of the same spans: a version 3 page without its
// column lengths.
std::string AsVersion2(const std::string& version3_page) {
  const size_t count_end = VarintEnd(version3_page, 1);
  return "\x02" + version3_page.substr(1, count_end - 1) +
         version3_page.substr(HeaderBytes(version3_page, span_page::kColumnCount - 1));
}

// `spans` as a page written before self time reads them: no children.
std::vector<Span> WithoutChildren(std::vector<Span> spans) {
  for (Span& span : spans) span.children_ns = 0;
  return spans;
}

TEST(SpanPageCodecTest, RoundTrip_Empty_Identical) { EXPECT_TRUE(RoundTrip({}).empty()); }

TEST(SpanPageCodecTest, RoundTrip_RandomSpansWithExtremes_Identical) {
  std::mt19937_64 rng(20261130);
  for (size_t count : {1u, 2u, 3u, 17u, 1000u, 20000u}) {
    const std::vector<Span> spans = RandomSpans(rng, count);
    EXPECT_EQ(RoundTrip(spans), spans) << count << " spans";
  }
}

TEST(SpanPageCodecTest, RoundTrip_AlternatingExtremeStartsAndIds_Identical) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
  std::vector<Span> spans;
  for (int i = 0; i < 8; ++i) {
    Span s = MakeSpan(i % 2 == 0 ? kU64Max : 0, i % 2 == 0 ? kMin : kMax);
    s.parent_op_id = i % 2 == 0 ? 0 : kU64Max;
    s.duration_ns = kU64Max;
    s.device_ns = kU64Max;
    s.name = s.tag = s.srcloc = std::numeric_limits<uint32_t>::max();
    s.launch_tid = i % 2 == 0 ? 0 : std::numeric_limits<uint32_t>::max();
    s.complete_tid = i % 2 == 0 ? std::numeric_limits<uint32_t>::max() : 0;
    s.stream = std::numeric_limits<uint32_t>::max();
    s.device = std::numeric_limits<uint16_t>::max();
    s.target = std::numeric_limits<uint8_t>::max();
    s.status = SpanStatus::kDuplicate;
    spans.push_back(s);
  }
  EXPECT_EQ(RoundTrip(spans), spans);
}

TEST(SpanPageCodecTest, Encode_RealisticSpans_AboutTwelveBytesEach) {
  const std::vector<Span> spans = SpanRun(1'000'000, 1'700'000'000'000'000'000, 32768);
  const std::string page = span_page::Encode(spans);
  EXPECT_LT(page.size(), spans.size() * 13) << "delta coding should keep realistic spans small";
  EXPECT_EQ(RoundTrip(spans), spans);
}

TEST(SpanPageCodecTest, RoundTrip_LargestPage_Identical) {
  std::mt19937_64 rng(7);
  const std::vector<Span> spans = RandomSpans(rng, span_page::kMaxSpansPerPage);
  EXPECT_EQ(RoundTrip(spans), spans);
}

TEST(SpanPageCodecTest, Malicious_EmptyInput_Error) {
  Result<std::vector<Span>> decoded = span_page::Decode("");
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("empty page"), std::string::npos);
}

TEST(SpanPageCodecTest, Malicious_UnknownFormatVersion_ErrorNamesVersion) {
  std::string page = span_page::Encode(SpanRun(1, 1, 3));
  page[0] = 7;
  Result<std::vector<Span>> decoded = span_page::Decode(page);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(decoded.status().message().find("format version 7"), std::string::npos)
      << decoded.status().message();
}

TEST(SpanPageCodecTest, Malicious_HugeSpanCount_ErrorWithoutAllocating) {
  // Version 1, count 2^62 (varint), then a few bytes: a naive decoder would
  // try to allocate 2^62 spans.
  const std::string page("\x01\x80\x80\x80\x80\x80\x80\x80\x80\x40\x00\x00", 12);
  Result<std::vector<Span>> decoded = span_page::Decode(page);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find(
                "span count 4611686018427387904 exceeds the page limit 65536"),
            std::string::npos)
      << decoded.status().message();
}

TEST(SpanPageCodecTest, Malicious_AllConstantColumnsWithLargestCount_DecodesBounded) {
  // 65536 spans described by 14 one-value columns: the largest allocation a
  // page can cause, from a few dozen bytes.
  std::string page("\x01\x80\x80\x04", 4);
  for (int column = 0; column < 14; ++column) page += std::string("\x01\x00", 2);
  Result<std::vector<Span>> decoded = span_page::Decode(page);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded->size(), span_page::kMaxSpansPerPage);
}

TEST(SpanPageCodecTest, Malicious_UnknownColumnMode_ErrorNamesColumn) {
  std::string page = span_page::Encode(SpanRun(1, 1, 3));
  const size_t mode = HeaderBytes(page);  // start_ns's, the first column
  page[mode] = 9;
  Result<std::vector<Span>> decoded = span_page::Decode(page);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("at byte " + std::to_string(mode) +
                                            ": column start_ns: unknown mode 9"),
            std::string::npos)
      << decoded.status().message();
}

TEST(SpanPageCodecTest, Malicious_TruncatedAtEveryLength_AlwaysError) {
  const std::string page = span_page::Encode(SpanRun(1, 1, 20));
  for (size_t length = 0; length < page.size(); ++length) {
    EXPECT_FALSE(span_page::Decode(std::string_view(page).substr(0, length)).ok())
        << "prefix of " << length << " bytes";
  }
}

TEST(SpanPageCodecTest, Malicious_TrailingBytes_ErrorCountsThem) {
  const std::string page = span_page::Encode(SpanRun(1, 1, 4));
  Result<std::vector<Span>> decoded = span_page::Decode(page + "xyz");
  ASSERT_FALSE(decoded.ok());
  const size_t columns = page.size() - HeaderBytes(page);
  EXPECT_NE(decoded.status().message().find("the column lengths add up to " +
                                            std::to_string(columns) + " bytes, the page has " +
                                            std::to_string(columns + 3) + " after them"),
            std::string::npos)
      << decoded.status().message();
  decoded = span_page::Decode(AsVersion2(AsVersion3(page)) + "xyz");
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("3 bytes after the last column"), std::string::npos)
      << decoded.status().message();
}

TEST(SpanPageCodecTest, Columns_OnlyThoseAsked_OthersKeepDefaults) {
  std::mt19937_64 rng(3);
  const std::vector<Span> spans = RandomSpans(rng, 500);
  Result<std::vector<Span>> decoded = span_page::Decode(
      span_page::Encode(spans), span_page::kName | span_page::kDurationNs | span_page::kStatus);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  ASSERT_EQ(decoded->size(), spans.size());
  for (size_t i = 0; i < spans.size(); ++i) {
    Span expected;
    expected.name = spans[i].name;
    expected.duration_ns = spans[i].duration_ns;
    expected.status = spans[i].status;
    ASSERT_EQ(decoded.value()[i], expected) << "span " << i;
  }
}

TEST(SpanPageCodecTest, Columns_CorruptColumnNotAsked_NotRead) {
  std::string page = span_page::Encode(SpanRun(1, 1, 3));
  page[HeaderBytes(page)] = 9;  // start_ns's mode byte
  EXPECT_TRUE(span_page::Decode(page, span_page::kName).ok());
  Result<std::vector<Span>> decoded = span_page::Decode(page, span_page::kStartNs);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("column start_ns: unknown mode 9"), std::string::npos)
      << decoded.status().message();
}

TEST(SpanPageCodecTest, Version2Page_DecodedWholeWhateverTheColumnsAsked) {
  std::mt19937_64 rng(5);
  const std::vector<Span> spans = RandomSpans(rng, 300);
  const std::string page = AsVersion2(AsVersion3(span_page::Encode(spans)));
  ASSERT_EQ(page[0], 2);
  Result<std::vector<Span>> decoded = span_page::Decode(page, span_page::kName);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded.value(), WithoutChildren(spans));
}

TEST(SpanPageCodecTest, Version3Page_NoChildrenEvenInAReusedVector) {
  std::mt19937_64 rng(8);
  const std::vector<Span> spans = RandomSpans(rng, 200);
  std::vector<Span> reused;
  ASSERT_TRUE(
      span_page::DecodeInto(span_page::Encode(spans), span_page::kAllColumns, &reused).ok());
  ASSERT_EQ(reused, spans);
  const std::string page = AsVersion3(span_page::Encode(spans));
  ASSERT_EQ(page[0], 3);
  ASSERT_TRUE(span_page::DecodeInto(page, span_page::kAllColumns, &reused).ok());
  EXPECT_EQ(reused, WithoutChildren(spans));
}

TEST(SpanPageCodecTest, Encode_NoNestedSpans_ChildrenColumnCostsThreeBytes) {
  const std::vector<Span> spans = SpanRun(1, 1'700'000'000'000'000'000, 1000);
  std::vector<Span> nested = spans;
  nested[10].children_ns = 300;
  const size_t flat = span_page::Encode(spans).size();
  EXPECT_EQ(AsVersion3(span_page::Encode(spans)).size() + 3, flat)
      << "a constant column: its length, mode byte and one value";
  EXPECT_GT(span_page::Encode(nested).size(), flat);
  EXPECT_EQ(RoundTrip(nested), nested);
}

TEST(SpanPageCodecTest, Malicious_ColumnLengthMovedToTheNext_ErrorNamesColumn) {
  // One span, every column constant: start_ns's column is its mode byte and
  // a varint. One byte more for start_ns and one less for duration_ns
  // still add up to the page, but start_ns then has a byte after its value.
  std::string page = span_page::Encode(std::vector<Span>{MakeSpan(1, 1)});
  const size_t start_length = VarintEnd(page, 1);
  ASSERT_LT(static_cast<uint8_t>(page[start_length]), 0x7f);
  ASSERT_GT(static_cast<uint8_t>(page[start_length + 1]), 1);
  ++page[start_length];
  --page[start_length + 1];
  Result<std::vector<Span>> decoded = span_page::Decode(page);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("column start_ns: 1 bytes after its values"),
            std::string::npos)
      << decoded.status().message();
  EXPECT_TRUE(span_page::Decode(page, span_page::kName).ok());
}

TEST(SpanPageCodecTest, Malicious_VarintOverflowing64Bits_Error) {
  // One span whose start_ns varint has 10 bytes with a 10th byte above 1.
  std::string page("\x01\x01\x00", 3);
  page += std::string(9, '\xff') + "\x02";
  page += std::string(13, '\x00');
  Result<std::vector<Span>> decoded = span_page::Decode(page);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("column start_ns: varint overflows 64 bits at span 0"),
            std::string::npos)
      << decoded.status().message();
}

TEST(SpanPageCodecTest, Malicious_StatusOutOfRange_ErrorNamesColumn) {
  std::string page = span_page::Encode(std::vector<Span>{MakeSpan(1, 1)});
  // The last three columns are constant (mode byte, value): status,
  // has_device_ns, then children_ns. 4 is no SpanStatus.
  page[page.size() - 5] = 4;
  Result<std::vector<Span>> decoded = span_page::Decode(page);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("column status: value 4 of span 0 exceeds 3"),
            std::string::npos)
      << decoded.status().message();
}

TEST(SpanPageCodecTest, Malicious_DevicePresenceNotABool_ErrorNamesColumn) {
  std::string page = span_page::Encode(std::vector<Span>{MakeSpan(1, 1)});
  page[page.size() - 3] = 2;  // has_device_ns's value: children_ns follows
  Result<std::vector<Span>> decoded = span_page::Decode(page);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("column has_device_ns: value 2 of span 0 exceeds 1"),
            std::string::npos)
      << decoded.status().message();
}

TEST(SpanPageCodecTest, Issue16_MeasuredZeroDeviceDuration_KeepsItsPresence) {
  Span measured = MakeSpan(1, 1);
  measured.device_ns = 0;
  measured.has_device_ns = true;
  Span none = MakeSpan(2, 2);
  none.device_ns = 0;
  none.has_device_ns = false;
  const std::vector<Span> decoded = RoundTrip({measured, none});
  ASSERT_EQ(decoded.size(), 2u);
  EXPECT_TRUE(decoded[0].has_device_ns);
  EXPECT_FALSE(decoded[1].has_device_ns);
}

TEST(SpanPageCodecTest, Version1Page_DeviceDurationPresentWhereNotZero) {
  // A version 1 page is a version 2 page without its last column: here
  // per-value (mode byte and one byte per span).
  Span with = MakeSpan(1, 1);
  with.device_ns = 5;
  with.has_device_ns = true;
  Span without = MakeSpan(2, 2);
  without.device_ns = 0;
  without.has_device_ns = false;
  std::string page = AsVersion2(AsVersion3(span_page::Encode(std::vector<Span>{with, without})));
  ASSERT_EQ(page.substr(page.size() - 3), std::string("\x00\x01\x00", 3));
  page.resize(page.size() - 3);
  page[0] = 1;
  Result<std::vector<Span>> decoded = span_page::Decode(page);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded.value(), (std::vector<Span>{with, without}));
}

TEST(SpanPageCodecTest, Malicious_DeltaLeavesUint32Range_Error) {
  // Two spans; the second launch_tid delta pushes the value past 2^32 - 1.
  Span a = MakeSpan(1, 1);
  Span b = MakeSpan(2, 2);
  a.launch_tid = std::numeric_limits<uint32_t>::max();
  b.launch_tid = std::numeric_limits<uint32_t>::max() - 1;  // delta -1: zigzag 1
  std::string page = span_page::Encode(std::vector<Span>{a, b});
  // Find the launch_tid column: span 0 stores zigzag(2^32 - 1) = 2^33 - 2
  // (5 varint bytes), span 1 zigzag(-1) = 1. Make the latter zigzag(+1) = 2.
  const std::string max_tid("\xfe\xff\xff\xff\x1f\x01", 6);
  const size_t at = page.find(max_tid);
  ASSERT_NE(at, std::string::npos);
  page[at + 5] = 2;
  Result<std::vector<Span>> decoded = span_page::Decode(page);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("column launch_tid: value 4294967296 of span 1"),
            std::string::npos)
      << decoded.status().message();
}

// A few thousand random corruptions of valid pages (bit flips, byte
// overwrites, truncations, insertions, deletions): each decode either fails
// with a message or yields spans, and never crashes (run it under ASan).
TEST(SpanPageCodecTest, Malicious_RandomMutations_ErrorOrValidSpans) {
  std::mt19937_64 rng(42);
  const std::vector<std::string> seeds = {
      span_page::Encode(SpanRun(100, 1'700'000'000'000'000'000, 64)),
      span_page::Encode(RandomSpans(rng, 40)),
      span_page::Encode(std::vector<Span>{MakeSpan(1, 1)}),
  };
  size_t rejected = 0;
  size_t accepted = 0;
  for (int round = 0; round < 6000; ++round) {
    std::string page = seeds[rng() % seeds.size()];
    const int mutations = 1 + static_cast<int>(rng() % 4);
    for (int m = 0; m < mutations && !page.empty(); ++m) {
      const size_t at = rng() % page.size();
      switch (rng() % 5) {
        case 0:
          page[at] = static_cast<char>(page[at] ^ (1 << (rng() % 8)));
          break;
        case 1:
          page[at] = static_cast<char>(rng());
          break;
        case 2:
          page.resize(at);
          break;
        case 3:
          page.insert(at, 1, static_cast<char>(rng()));
          break;
        default:
          page.erase(at, 1);
          break;
      }
    }
    Result<std::vector<Span>> decoded = span_page::Decode(page);
    if (!decoded.ok()) {
      ++rejected;
      EXPECT_FALSE(decoded.status().message().empty());
      continue;
    }
    ++accepted;
    EXPECT_LE(decoded->size(), span_page::kMaxSpansPerPage);
    for (const Span& s : decoded.value()) {
      EXPECT_LE(static_cast<int>(s.status), static_cast<int>(SpanStatus::kDuplicate));
    }
    // Whatever decodes is a page the encoder could have written.
    EXPECT_EQ(RoundTrip(decoded.value()), decoded.value());
  }
  EXPECT_GT(rejected, 1000u);
  EXPECT_GT(accepted + rejected, 5999u);
}

}  // namespace
}  // namespace optrace::daemon
