#include "drops_text.h"

#include <gtest/gtest.h>

namespace optrace::cli {
namespace {

TEST(DescribeDropsTest, None_SaysNone) { EXPECT_EQ(DescribeDrops(v1::Drops()), "none"); }

TEST(DescribeDropsTest, Causes_OnlyNonZeroListed) {
  v1::Drops drops;
  drops.set_ring_full(1200);
  drops.set_shed(34);
  drops.set_total(1234);
  drops.set_strings(3);
  EXPECT_EQ(DescribeDrops(drops), "1234 events (ring_full 1200, shed 34); 3 strings not interned");
}

TEST(DescribeDropsTest, NamesCapped_ShownAfterStringsAlsoWithoutLostEvents) {
  v1::Drops drops;
  drops.set_strings(3);
  drops.set_names_capped(90);
  EXPECT_EQ(DescribeDrops(drops), "none; 3 strings not interned; 90 names capped");
  drops.set_strings(0);
  drops.set_invalid(2);
  drops.set_total(2);
  EXPECT_EQ(DescribeDrops(drops), "2 events (invalid 2); 90 names capped");
}

TEST(DescribeDropsTest, NameLosses_OnlyTheNonZeroParts) {
  v1::Drops drops;
  EXPECT_EQ(DescribeNameLosses(drops), "");
  drops.set_strings(3);
  EXPECT_EQ(DescribeNameLosses(drops), "; 3 strings not interned");
  drops.set_names_capped(90);
  EXPECT_EQ(DescribeNameLosses(drops), "; 3 strings not interned; 90 names capped");
}

}  // namespace
}  // namespace optrace::cli
