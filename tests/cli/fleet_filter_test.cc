// The fleet flags and `optrace diff --fleet` selectors in request form.
#include "fleet_filter.h"

#include <gtest/gtest.h>

namespace optrace::cli {
namespace {

TEST(FleetFilterTest, ParseFleetSelector_Forms_NodeAndLabel) {
  struct Case {
    const char* text;
    const char* node;
    const char* label;
  };
  for (const Case& c :
       {Case{"gpu-7", "gpu-7", ""}, Case{"node=gpu-7", "gpu-7", ""},
        Case{"label=fused", "", "fused"}, Case{"node=gpu-7,label=fused", "gpu-7", "fused"},
        Case{"label=a=b,node=n", "n", "a=b"}, Case{"*", "", ""}}) {
    const std::optional<v1::FleetFilter> side = ParseFleetSelector(c.text);
    ASSERT_TRUE(side.has_value()) << c.text;
    EXPECT_EQ(side->node(), c.node) << c.text;
    EXPECT_EQ(side->label(), c.label) << c.text;
  }
}

TEST(FleetFilterTest, ParseFleetSelector_Malformed_Refused) {
  for (const char* text : {"", "host=a", "node=", "node=a,node=b", "node=a,", "label=x,,"}) {
    EXPECT_FALSE(ParseFleetSelector(text).has_value()) << text;
  }
}

TEST(FleetFilterTest, Describe_Sides_ReadAsWords) {
  EXPECT_EQ(DescribeFleetSelector(*ParseFleetSelector("*")), "every node");
  EXPECT_EQ(DescribeFleetSelector(*ParseFleetSelector("gpu-7")), "node gpu-7");
  EXPECT_EQ(DescribeFleetSelector(*ParseFleetSelector("label=fused")), "label fused on every node");
  EXPECT_EQ(DescribeFleetSelector(*ParseFleetSelector("node=a,label=b")), "node a, label b");
}

TEST(FleetFilterTest, ToFleetFilter_Options_Copied) {
  const v1::FleetFilter filter = ToFleetFilter({"gpu-7", "train"});
  EXPECT_EQ(filter.node(), "gpu-7");
  EXPECT_EQ(filter.label(), "train");
}

}  // namespace
}  // namespace optrace::cli
