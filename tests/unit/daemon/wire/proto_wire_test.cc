// proto_wire writes the protobuf wire format by hand; these tests read its
// bytes back with protobuf (CodedInputStream and generated messages), at
// the edges: 10-byte varints, negative int64, empty and 4 KiB texts,
// nested lengths past one byte, and a FieldCursor's room.
#include "wire/proto_wire.h"

#include <google/protobuf/io/coded_stream.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "optrace/v1/optrace.pb.h"

namespace optrace::daemon::proto_wire {
namespace {

using google::protobuf::io::CodedInputStream;
using Event = v1::LiveEvent;

constexpr uint64_t kMaxU64 = std::numeric_limits<uint64_t>::max();
// The largest field number protobuf allows (a 5-byte key).
constexpr uint32_t kMaxFieldNumber = (uint32_t{1} << 29) - 1;

CodedInputStream Reader(const std::string& bytes) {
  return CodedInputStream(reinterpret_cast<const uint8_t*>(bytes.data()),
                          static_cast<int>(bytes.size()));
}

TEST(ProtoWireTest, VarintSize_AtEachSevenBitEdge_MatchesWhatIsAppended) {
  for (int bits = 0; bits <= 64; ++bits) {
    for (const uint64_t value : {bits == 64 ? kMaxU64 : (uint64_t{1} << bits) - 1,
                                 bits == 64 ? kMaxU64 : uint64_t{1} << bits}) {
      std::string out;
      AppendVarint(out, value);
      EXPECT_EQ(out.size(), VarintSize(value)) << value;
      char at[kMaxVarintBytes];
      EXPECT_EQ(static_cast<size_t>(PutVarint(at, value) - at), out.size()) << value;
      EXPECT_EQ(std::string(at, out.size()), out) << value;
      uint64_t back = 0;
      CodedInputStream in = Reader(out);
      ASSERT_TRUE(in.ReadVarint64(&back)) << value;
      EXPECT_EQ(back, value);
    }
  }
}

TEST(ProtoWireTest, Uint64Max_TenByteVarint_ParsesBack) {
  std::string out;
  AppendVarintField(out, Event::kOpIdFieldNumber, kMaxU64);
  EXPECT_EQ(out.size(), 1 + kMaxVarintBytes);
  EXPECT_EQ(out.size(), VarintFieldSize(Event::kOpIdFieldNumber, kMaxU64));
  Event parsed;
  ASSERT_TRUE(parsed.ParseFromString(out));
  EXPECT_EQ(parsed.op_id(), kMaxU64);
}

TEST(ProtoWireTest, NegativeInt64_AsTwosComplement_ParsesAsInt64) {
  for (const int64_t value : {int64_t{-1}, int64_t{-5}, std::numeric_limits<int64_t>::min()}) {
    std::string out;
    AppendVarintField(out, Event::kUnixNsFieldNumber, static_cast<uint64_t>(value));
    EXPECT_EQ(out.size(), 11u) << "a negative int64 takes 10 bytes";
    Event parsed;
    ASSERT_TRUE(parsed.ParseFromString(out));
    EXPECT_EQ(parsed.unix_ns(), value);
  }
}

TEST(ProtoWireTest, Fixed64_LittleEndian_ReadsBack) {
  std::string out;
  AppendFixed64Field(out, 7, 0x0102030405060708);
  AppendFixed64Field(out, 16, kMaxU64);
  CodedInputStream in = Reader(out);
  uint64_t value = 0;
  EXPECT_EQ(in.ReadTag(), (7u << 3) | kFixed64);
  ASSERT_TRUE(in.ReadLittleEndian64(&value));
  EXPECT_EQ(value, 0x0102030405060708u);
  EXPECT_EQ(in.ReadTag(), (16u << 3) | kFixed64);
  ASSERT_TRUE(in.ReadLittleEndian64(&value));
  EXPECT_EQ(value, kMaxU64);
  EXPECT_EQ(in.ReadTag(), 0u) << "nothing after the two fields";
}

TEST(ProtoWireTest, Texts_EmptyAnd4KiB_ParseBackWithTheirSizes) {
  const std::string big(4096, 'x');
  std::string out;
  AppendBytesField(out, Event::kNameFieldNumber, "");
  EXPECT_EQ(out.size(), LengthDelimitedSize(Event::kNameFieldNumber, 0));
  AppendBytesField(out, Event::kTagFieldNumber, big);
  EXPECT_EQ(out.size(), LengthDelimitedSize(Event::kNameFieldNumber, 0) +
                            LengthDelimitedSize(Event::kTagFieldNumber, big.size()));
  EXPECT_EQ(LengthDelimitedSize(Event::kTagFieldNumber, big.size()), 1 + 2 + big.size());
  Event parsed;
  ASSERT_TRUE(parsed.ParseFromString(out));
  EXPECT_EQ(parsed.name(), "");
  EXPECT_EQ(parsed.tag(), big);
}

TEST(ProtoWireTest, NestedLengths_BatchOfEventWithDevice_ParsesAsTailResponse) {
  // TailResponse{batch{items{event{name (300 bytes), device{...}}}}}: each
  // length counted with the size functions, two of them past one byte.
  std::string device;
  AppendVarintField(device, v1::Device::kTargetFieldNumber, v1::TARGET_GPU);
  AppendVarintField(device, v1::Device::kOrdinalFieldNumber, 65535);
  AppendVarintField(device, v1::Device::kStreamFieldNumber, 0xFFFFFFFF);
  const std::string name(300, 'n');
  std::string event;
  AppendBytesField(event, Event::kNameFieldNumber, name);
  AppendBytesField(event, Event::kDeviceFieldNumber, device);
  std::string item;
  AppendBytesField(item, v1::TailResponse::kEventFieldNumber, event);
  std::string response;
  AppendLengthPrefix(response, v1::TailResponse::kBatchFieldNumber,
                     LengthDelimitedSize(v1::TailBatch::kItemsFieldNumber, item.size()));
  AppendBytesField(response, v1::TailBatch::kItemsFieldNumber, item);
  ASSERT_GT(event.size(), 127u) << "a 2-byte length inside";

  v1::TailResponse parsed;
  ASSERT_TRUE(parsed.ParseFromString(response));
  ASSERT_EQ(parsed.batch().items_size(), 1);
  const Event& e = parsed.batch().items(0).event();
  EXPECT_EQ(e.name(), name);
  EXPECT_EQ(e.device().target(), v1::TARGET_GPU);
  EXPECT_EQ(e.device().ordinal(), 65535u);
  EXPECT_EQ(e.device().stream(), 0xFFFFFFFFu);
}

TEST(ProtoWireTest, FieldCursor_SameBytesAsAppend_EndsWhereTheyEnd) {
  const std::string text(200, 't');
  std::string appended;
  AppendVarintField(appended, kMaxFieldNumber, kMaxU64);
  AppendFixed64Field(appended, 2, 42);
  AppendLengthPrefix(appended, 3, 2);
  AppendVarintField(appended, 1, 0);
  AppendBytesField(appended, 4, text);
  AppendBytesField(appended, 5, "");

  std::string room(appended.size(), '\0');
  FieldCursor cursor(room.data(), room.data() + room.size());
  cursor.PutVarintField(kMaxFieldNumber, kMaxU64);
  EXPECT_EQ(static_cast<size_t>(cursor.at() - room.data()), FieldCursor::kMaxFieldBytes)
      << "the largest varint field";
  cursor.PutFixed64Field(2, 42);
  cursor.PutLengthPrefix(3, 2);
  cursor.PutVarintField(1, 0);
  cursor.PutBytesField(4, text);
  cursor.PutBytesField(5, "");
  EXPECT_EQ(cursor.at(), room.data() + room.size()) << "filled exactly, no write past its end";
  EXPECT_EQ(room, appended);
}

TEST(ProtoWireTest, BoundedMessage_FieldsThenClear_ViewsWhatWasPut) {
  BoundedMessage<2 * FieldCursor::kMaxFieldBytes + 8> message;
  message.PutVarintField(Event::kPidFieldNumber, 4242);
  message.PutBytesField(Event::kNameFieldNumber, "matmul");
  Event parsed;
  ASSERT_TRUE(parsed.ParseFromString(std::string(message.view())));
  EXPECT_EQ(parsed.pid(), 4242u);
  EXPECT_EQ(parsed.name(), "matmul");
  EXPECT_EQ(message.size(), VarintFieldSize(Event::kPidFieldNumber, 4242) +
                                LengthDelimitedSize(Event::kNameFieldNumber, 6));
  message.Clear();
  EXPECT_EQ(message.size(), 0u);
}

// These tests build with assertions (see tests/unit/daemon/CMakeLists.txt),
// so the room is checked.
TEST(ProtoWireDeathTest, FieldCursor_WritePastItsEnd_Stops) {
  ASSERT_TRUE(kCheckRoom);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  char room[FieldCursor::kMaxFieldBytes];
  EXPECT_DEATH(
      {
        FieldCursor cursor(room, room + 10);
        cursor.PutVarintField(1, kMaxU64);  // 11 bytes
      },
      "a write of 11 bytes overruns its room \\(10 bytes left\\)");
  EXPECT_DEATH(
      {
        FieldCursor cursor(room, room + sizeof room);
        cursor.PutBytesField(1, std::string(sizeof room - 1, 'x'));  // 2 + 14 bytes
      },
      "a write of 16 bytes overruns its room \\(15 bytes left\\)");
}

}  // namespace
}  // namespace optrace::daemon::proto_wire
