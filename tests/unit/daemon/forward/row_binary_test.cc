// RowBinary: the bytes ClickHouse expects, and answers read back without
// trusting them.
#include "forward/row_binary.h"

#include <gtest/gtest.h>

#include <limits>

namespace optrace::daemon {
namespace {

TEST(RowBinaryTest, Writer_IntsAndString_LittleEndianAndLeb128Length) {
  RowBinaryWriter writer;
  writer.Int<uint32_t>(0x01020304);
  writer.Int<int8_t>(-1);
  writer.String("ab");
  writer.String(std::string(200, 'x'));
  const std::string& bytes = writer.bytes();
  ASSERT_EQ(bytes.size(), 4u + 1 + 1 + 2 + 2 + 200);
  EXPECT_EQ(bytes.substr(0, 4), std::string("\x04\x03\x02\x01", 4));
  EXPECT_EQ(bytes[4], '\xff');
  EXPECT_EQ(bytes.substr(5, 3), std::string("\x02"
                                            "ab",
                                            3));
  EXPECT_EQ(bytes.substr(8, 2), std::string("\xc8\x01", 2)) << "200 = 0x48 | 0x80, then 1";
}

TEST(RowBinaryTest, Reader_WhatWriterWrote_SameValuesAndAtEnd) {
  RowBinaryWriter writer;
  writer.Int<int64_t>(std::numeric_limits<int64_t>::min());
  writer.Int<uint64_t>(std::numeric_limits<uint64_t>::max());
  writer.String("");
  writer.String(std::string("a\0b", 3));
  RowBinaryReader reader(writer.bytes());
  EXPECT_EQ(reader.Int<int64_t>(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(reader.Int<uint64_t>(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(reader.String(), "");
  EXPECT_EQ(reader.String(), std::string("a\0b", 3));
  EXPECT_TRUE(reader.AtEnd());
  EXPECT_TRUE(reader.status().ok());
}

TEST(RowBinaryTest, Malicious_TruncatedNumber_ErrorNamesByteAndLaterReadsFail) {
  RowBinaryReader reader(std::string_view("\x01\x02\x03", 3));
  EXPECT_EQ(reader.Int<uint64_t>(), 0u);
  EXPECT_NE(reader.status().message().find("truncated at byte 0 of 3"), std::string::npos)
      << reader.status().message();
  EXPECT_EQ(reader.Int<uint8_t>(), 0u) << "the first error sticks";
}

TEST(RowBinaryTest, Malicious_StringLongerThanInput_Error) {
  RowBinaryReader reader(
      std::string_view("\x05"
                       "ab",
                       3));
  EXPECT_EQ(reader.String(), "");
  EXPECT_NE(reader.status().message().find("a string of 5 bytes"), std::string::npos)
      << reader.status().message();
}

TEST(RowBinaryTest, Malicious_HugeStringLength_RefusedBeforeAllocating) {
  RowBinaryReader reader(std::string_view("\xff\xff\xff\xff\x0f", 5));
  EXPECT_EQ(reader.String(), "");
  EXPECT_NE(reader.status().message().find("longer than"), std::string::npos)
      << reader.status().message();
}

TEST(RowBinaryTest, Malicious_LengthOverflowing64Bits_Error) {
  const std::string bytes = std::string(10, '\xff') + "\x01";
  RowBinaryReader reader(bytes);
  EXPECT_EQ(reader.String(), "");
  EXPECT_NE(reader.status().message().find("overflows 64 bits"), std::string::npos)
      << reader.status().message();
}

}  // namespace
}  // namespace optrace::daemon
