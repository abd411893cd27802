// NVTX messages and event attributes as optrace names and tags.
#include "nvtx/event_namer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace optrace::nvtx {
namespace {

nvtxEventAttributes_t Attributes() {
  nvtxEventAttributes_t a;
  std::memset(&a, 0, sizeof a);
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  return a;
}

class EventNamerTest : public ::testing::Test {
 protected:
  instrument::LossCounter names_over_cap_{"test.names_over_cap"};
  instrument::LossCounter domains_over_cap_{"test.domains_over_cap"};
  instrument::LossCounter truncated_{"test.truncated"};
  instrument::LossCounter malformed_{"test.malformed"};
  instrument::NameTable names_{256, names_over_cap_};
  DomainRegistry domains_{8, names_, domains_over_cap_};
  EventNamer namer_{names_, truncated_, malformed_};
};

TEST_F(EventNamerTest, NarrowAndWideMessages_SameNameForSameText) {
  EXPECT_EQ(namer_.NameOf("matmul"), Intern("matmul"));
  EXPECT_EQ(namer_.NameOf(L"matmul"), Intern("matmul"));
  EXPECT_EQ(namer_.NameOf(L"\u6f14\u7b97"), Intern("\u6f14\u7b97"));
}

TEST_F(EventNamerTest, NullOrEmptyMessage_Unnamed) {
  const uint32_t unnamed = Intern("<unnamed>");
  EXPECT_EQ(namer_.NameOf(static_cast<const char*>(nullptr)), unnamed);
  EXPECT_EQ(namer_.NameOf(""), unnamed);
  EXPECT_EQ(namer_.NameOf(L""), unnamed);
  EXPECT_EQ(namer_.NamesOf(domains_.default_domain(), nullptr).name_id, unnamed);
}

TEST_F(EventNamerTest, HugeMessages_CutToMaxNameBytesAndCounted) {
  const std::string huge(200000, 'q');
  EXPECT_EQ(namer_.NameOf(huge.c_str()), Intern(std::string(kMaxNameBytes, 'q')));
  const std::wstring wide(200000, L'\u00e9');  // 2 bytes each in UTF-8
  std::string expected;
  for (size_t i = 0; i < kMaxNameBytes / 2; ++i) expected += "\u00e9";
  EXPECT_EQ(namer_.NameOf(wide.c_str()), Intern(expected));
  EXPECT_EQ(truncated_.value(), 2u);
}

TEST_F(EventNamerTest, AttributesWithMessageAndCategory_NameAndDomainCategoryTag) {
  Domain& d = domains_.Create("mylib");
  d.NameCategory(1, "io");
  nvtxEventAttributes_t a = Attributes();
  a.category = 1;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = "read_batch";
  const EventNames names = namer_.NamesOf(d, &a);
  EXPECT_EQ(names.name_id, Intern("read_batch"));
  EXPECT_EQ(names.tag_id, Intern("mylib/io"));
  a.messageType = NVTX_MESSAGE_TYPE_UNICODE;
  a.message.unicode = L"read_\u00fc";
  EXPECT_EQ(namer_.NamesOf(d, &a).name_id, Intern("read_\u00fc"));
}

TEST_F(EventNamerTest, RegisteredString_HandleNamesTheEvent) {
  nvtxEventAttributes_t a = Attributes();
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = EventNamer::HandleOf(namer_.NameOf("registered_op"));
  EXPECT_EQ(namer_.NamesOf(domains_.default_domain(), &a).name_id, Intern("registered_op"));
}

TEST_F(EventNamerTest, Malicious_AttributesSizeTooSmallForMessage_UnnamedAndCounted) {
  nvtxEventAttributes_t a = Attributes();
  a.size = 8;  // covers version, size and category only
  a.category = 0;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = "must_not_be_read";
  EXPECT_EQ(namer_.NamesOf(domains_.default_domain(), &a).name_id, Intern("<unnamed>"));
  EXPECT_EQ(malformed_.value(), 1u);
}

TEST_F(EventNamerTest, Malicious_UnknownMessageTypeOrForeignHandle_UnnamedAndCounted) {
  nvtxEventAttributes_t a = Attributes();
  a.messageType = 77;
  a.message.ascii = "must_not_be_read";
  EXPECT_EQ(namer_.NamesOf(domains_.default_domain(), &a).name_id, Intern("<unnamed>"));
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = reinterpret_cast<nvtxStringHandle_t>(uintptr_t{1} << 40);
  EXPECT_EQ(namer_.NamesOf(domains_.default_domain(), &a).name_id, Intern("<unnamed>"));
  EXPECT_EQ(malformed_.value(), 2u);
}

}  // namespace
}  // namespace optrace::nvtx
