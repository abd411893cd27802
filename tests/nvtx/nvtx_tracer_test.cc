// The NVTX tracer's settings from the environment. (Its event mapping is
// tested end to end in nvtx_injection_test.cc, through real NVTX.)
#include "nvtx/nvtx_tracer.h"

#include <gtest/gtest.h>
#include <stdlib.h>

namespace optrace::nvtx {
namespace {

class ReadTracerLimitsTest : public ::testing::Test {
 protected:
  void TearDown() override { ::unsetenv("OPTRACE_NVTX_MAX_NAMES"); }
};

TEST_F(ReadTracerLimitsTest, Unset_Defaults) {
  ::unsetenv("OPTRACE_NVTX_MAX_NAMES");
  EXPECT_EQ(ReadTracerLimits().max_names, 4096u);
}

TEST_F(ReadTracerLimitsTest, ValidCount_Used) {
  ::setenv("OPTRACE_NVTX_MAX_NAMES", "40", 1);
  EXPECT_EQ(ReadTracerLimits().max_names, 40u);
}

TEST_F(ReadTracerLimitsTest, Malicious_NotACountZeroNegativeOrHuge_DefaultKept) {
  for (const char* bad : {"abc", "12x", "0", "-5", "99999999999999999999", "2000000"}) {
    ::setenv("OPTRACE_NVTX_MAX_NAMES", bad, 1);
    EXPECT_EQ(ReadTracerLimits().max_names, 4096u) << bad;
  }
}

}  // namespace
}  // namespace optrace::nvtx
