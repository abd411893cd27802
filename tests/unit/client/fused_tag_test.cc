// The fused-tag helpers of the C and C++ APIs (docs/dispatch-names.md).
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "optrace/abi.h"
#include "optrace/optrace.h"
#include "optrace/optrace.hpp"

namespace optrace {
namespace {

TEST(FusedTagApiTest, Cxx_Parts_JoinedByPlusInOrder) {
  EXPECT_EQ(FusedTag({"matmul_16x1024x256_f32", "elementwise_gelu_16384_f32"}),
            "matmul_16x1024x256_f32+elementwise_gelu_16384_f32");
  const std::vector<std::string_view> three = {"a", "b", "c"};
  EXPECT_EQ(FusedTag(three), "a+b+c");
}

TEST(FusedTagApiTest, Cxx_InvalidParts_Empty) {
  EXPECT_EQ(FusedTag({"only_one"}), "");
  EXPECT_EQ(FusedTag({"a", ""}), "");
  EXPECT_EQ(FusedTag({"a+b", "c"}), "") << "a part may not itself be fused";
  const std::string long_part(abi::kMaxStringBytes, 'x');
  EXPECT_EQ(FusedTag({long_part, "y"}), "") << "would be cut by the string table";
}

TEST(FusedTagApiTest, C_Parts_WrittenWithLength) {
  const char* parts[] = {"rms_norm_16x256_f32", "matmul_16x1024x256_f32"};
  char out[64];
  const int n = optrace_fused_tag(parts, 2, out, sizeof out);
  ASSERT_EQ(n, static_cast<int>(std::strlen("rms_norm_16x256_f32+matmul_16x1024x256_f32")));
  EXPECT_STREQ(out, "rms_norm_16x256_f32+matmul_16x1024x256_f32");
}

TEST(FusedTagApiTest, C_BadArguments_NegativeErrno) {
  const char* parts[] = {"a", "b", nullptr, ""};
  char out[8] = "keep";
  EXPECT_EQ(optrace_fused_tag(nullptr, 2, out, sizeof out), -EINVAL);
  EXPECT_EQ(optrace_fused_tag(parts, 2, nullptr, 8), -EINVAL);
  EXPECT_EQ(optrace_fused_tag(parts, 1, out, sizeof out), -EINVAL);
  EXPECT_EQ(optrace_fused_tag(parts, 3, out, sizeof out), -EINVAL);      // a null part
  EXPECT_EQ(optrace_fused_tag(parts + 3, 1, out, sizeof out), -EINVAL);  // one part
  const char* with_empty[] = {"a", ""};
  EXPECT_EQ(optrace_fused_tag(with_empty, 2, out, sizeof out), -EINVAL);
  const char* with_plus[] = {"a+b", "c"};
  EXPECT_EQ(optrace_fused_tag(with_plus, 2, out, sizeof out), -EINVAL);
  EXPECT_EQ(optrace_fused_tag(parts, 2, out, 3), -ENOSPC);  // "a+b" needs 4 bytes
  EXPECT_STREQ(out, "keep");
  EXPECT_EQ(optrace_fused_tag(parts, 2, out, 4), 3);
  const std::string long_part(abi::kMaxStringBytes, 'x');
  const char* too_long[] = {long_part.c_str(), "y"};
  std::vector<char> big(2 * abi::kMaxStringBytes);
  EXPECT_EQ(optrace_fused_tag(too_long, 2, big.data(), big.size()), -E2BIG);
}

}  // namespace
}  // namespace optrace
