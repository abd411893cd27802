#include "drain/bounded_name_set.h"

#include <gtest/gtest.h>

namespace optrace::daemon {
namespace {

TEST(BoundedNameSetTest, Insert_Full_ForgetsTheOldestAndSaysSo) {
  BoundedNameSet names(2);
  EXPECT_FALSE(names.Insert("a"));
  EXPECT_FALSE(names.Insert("b"));
  EXPECT_FALSE(names.Insert("a")) << "held already: nothing forgotten";
  EXPECT_TRUE(names.Insert("c"));
  EXPECT_EQ(names.size(), 2u);
  EXPECT_FALSE(names.Contains("a")) << "the oldest";
  EXPECT_TRUE(names.Contains("b"));
  EXPECT_TRUE(names.Contains("c"));
  EXPECT_TRUE(names.Insert("d"));
  EXPECT_FALSE(names.Contains("b"));
}

TEST(BoundedNameSetTest, EraseIf_ForgetsThoseNamesAndMakesRoom) {
  BoundedNameSet names(3);
  for (const char* name : {"a", "b", "c"}) names.Insert(name);
  names.EraseIf([](const std::string& name) { return name != "b"; });
  EXPECT_EQ(names.size(), 1u);
  EXPECT_TRUE(names.Contains("b"));
  EXPECT_FALSE(names.Insert("x"));
  EXPECT_FALSE(names.Insert("y")) << "room made by EraseIf";
  EXPECT_TRUE(names.Insert("z"));
  EXPECT_FALSE(names.Contains("b")) << "the oldest left";
}

}  // namespace
}  // namespace optrace::daemon
