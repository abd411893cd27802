// target_numbers.h: every Target of the proto's descriptor and every ABI
// target kind map to each other, both ways, and by meaning (the proto's
// TARGET_GPU is the ABI's "gpu").
#include "optrace/v1/target_numbers.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

#include "common/op_line.h"

namespace optrace::v1 {
namespace {

// "gpu" for TARGET_GPU, "none" for TARGET_UNSPECIFIED: the ABI's word for
// the target the proto's value name says.
std::string WordOfValueName(const std::string& value_name) {
  std::string word = value_name.substr(std::string("TARGET_").size());
  if (word == "UNSPECIFIED") return "none";
  for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return word;
}

TEST(TargetNumbersTest, EveryProtoTarget_KindAndBack_SameTargetSameWord) {
  const google::protobuf::EnumDescriptor* targets = Target_descriptor();
  ASSERT_EQ(targets->value_count(), abi::kMaxTargetKind + 1);
  for (int i = 0; i < targets->value_count(); ++i) {
    const google::protobuf::EnumValueDescriptor* value = targets->value(i);
    const std::optional<abi::TargetKind> kind = KindFromTarget(value->number());
    ASSERT_TRUE(kind.has_value()) << value->name();
    EXPECT_EQ(TargetFromKind(*kind), value->number()) << value->name();
    EXPECT_EQ(TargetKindName(*kind), WordOfValueName(value->name()));
  }
}

TEST(TargetNumbersTest, EveryAbiKind_TargetAndBack_SameKind) {
  for (int byte = 0; byte <= abi::kMaxTargetKind; ++byte) {
    const auto kind = static_cast<abi::TargetKind>(byte);
    const Target target = TargetFromKind(kind);
    EXPECT_TRUE(Target_IsValid(target)) << byte;
    EXPECT_EQ(KindFromTarget(target), kind) << byte;
  }
}

TEST(TargetNumbersTest, Malicious_NumberNoTarget_Nullopt) {
  EXPECT_EQ(KindFromTarget(-1), std::nullopt);
  EXPECT_EQ(KindFromTarget(Target_MAX + 1), std::nullopt);
  EXPECT_EQ(KindFromTarget(0x7fffffff), std::nullopt);
}

}  // namespace
}  // namespace optrace::v1
