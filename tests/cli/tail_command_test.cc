#include "tail_command.h"

#include <gtest/gtest.h>

namespace optrace::cli {
namespace {

TEST(BuildTailRequestTest, Default_EventsAtTheDaemonsLevel) {
  const v1::TailRequest r = BuildTailRequest(TailOptions());
  EXPECT_TRUE(r.events());
  EXPECT_FALSE(r.spans());
  EXPECT_EQ(r.level(), v1::LEVEL_UNSPECIFIED);
  EXPECT_FALSE(r.has_device());
}

TEST(BuildTailRequestTest, Filters_AllCarried) {
  TailOptions o;
  o.level = v1::LEVEL_TRACE;
  o.pid = 77;
  o.name_pattern = "^matmul";
  o.target = v1::TARGET_GPU;
  o.device = 0;
  const v1::TailRequest r = BuildTailRequest(o);
  EXPECT_EQ(r.level(), v1::LEVEL_TRACE);
  EXPECT_EQ(r.pid(), 77u);
  EXPECT_EQ(r.name_pattern(), "^matmul");
  EXPECT_EQ(r.target(), v1::TARGET_GPU);
  EXPECT_TRUE(r.has_device());  // device 0 is a filter, not "unset"
  EXPECT_EQ(r.device(), 0u);
}

TEST(BuildTailRequestTest, MinDuration_AsksForSpans) {
  TailOptions o;
  o.min_duration_ns = 1'000'000;
  const v1::TailRequest r = BuildTailRequest(o);
  EXPECT_TRUE(r.spans());
  EXPECT_FALSE(r.events());
  EXPECT_EQ(r.min_duration_ns(), 1'000'000u);
}

}  // namespace
}  // namespace optrace::cli
