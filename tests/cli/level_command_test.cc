#include "level_command.h"

#include <gtest/gtest.h>

namespace optrace::cli {
namespace {

v1::SetLevelResponse Reached(uint32_t n, v1::Level level) {
  v1::SetLevelResponse response;
  response.set_producers_reached(n);
  response.set_level(level);
  return response;
}

TEST(DescribeSetLevelTest, Scopes_Named) {
  LevelSetOptions options;
  options.level = v1::LEVEL_TRACE;
  options.pid = 1234;
  EXPECT_EQ(DescribeSetLevel(options, Reached(1, v1::LEVEL_TRACE)),
            "level trace set for pid 1234; reached 1 producer");
  options.pid = 0;
  EXPECT_EQ(DescribeSetLevel(options, Reached(3, v1::LEVEL_TRACE)),
            "default level set to trace; reached 3 producers");
  options.clear = true;
  options.level.reset();
  options.label = "train";
  EXPECT_EQ(DescribeSetLevel(options, Reached(0, v1::LEVEL_UNSPECIFIED)),
            "override cleared for label train; reached 0 producers");
}

TEST(RenderLevelsTest, Producers_Table) {
  v1::GetLevelResponse levels;
  levels.set_default_level(v1::LEVEL_OFF);
  v1::LevelRule* rule = levels.add_rules();
  rule->set_label_pattern("train.*");
  rule->set_level(v1::LEVEL_DEBUG);
  v1::ProducerLevel* p = levels.add_producers();
  p->set_session_id(5);
  p->set_pid(4242);
  p->set_live(v1::LEVEL_TRACE);
  p->set_tail(v1::LEVEL_TRACE);
  const std::string text = RenderLevels(levels, 0, Palette(false));
  EXPECT_EQ(text.rfind("default level: off\nrule: label train.* -> debug\n", 0), 0u) << text;
  EXPECT_NE(text.find("4242"), std::string::npos) << text;
  EXPECT_NE(text.find("REQUESTED"), std::string::npos) << text;
}

TEST(RenderLevelsTest, NoProducers_SaysSo) {
  EXPECT_NE(RenderLevels(v1::GetLevelResponse(), 0, Palette(false)).find("no live producers"),
            std::string::npos);
}

}  // namespace
}  // namespace optrace::cli
