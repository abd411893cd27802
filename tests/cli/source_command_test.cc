// The `optrace source` listing: the header, right-aligned line numbers and
// the op's line marked in the gutter.
#include "source_command.h"

#include <gtest/gtest.h>

#include "json_convert.h"

namespace optrace::cli {
namespace {

v1::GetSourceResponse ModelListing() {
  v1::GetSourceResponse source;
  source.set_source_location("model.py:37");
  source.set_file("model.py");
  source.set_line(37);
  source.set_first_line(35);
  source.add_lines("    x = self.fc1(x)");
  source.add_lines("    x = torch.relu(x)");
  source.add_lines("    return self.fc2(x)");
  return source;
}

TEST(SourceRenderTest, Listing_OpLineMarkedNumbersRightAligned) {
  EXPECT_EQ(RenderSource(ModelListing(), 7, 123),
            "model.py:37 (session 7, op 123)\n"
            "   35 |     x = self.fc1(x)\n"
            "   36 |     x = torch.relu(x)\n"
            ">  37 |     return self.fc2(x)\n");
}

TEST(SourceRenderTest, Registered_HeaderSaysSoAndWideNumbersWiden) {
  v1::GetSourceResponse source;
  source.set_source_location("ir/dispatch_3.mlir:99999");
  source.set_line(99999);
  source.set_first_line(99999);
  source.set_registered(true);
  source.add_lines("  return");
  source.add_lines("}");
  EXPECT_EQ(RenderSource(source, 7, 5),
            "ir/dispatch_3.mlir:99999 (session 7, op 5, registered by the runtime)\n"
            "> 99999 |   return\n"
            " 100000 | }\n");
}

TEST(SourceJsonTest, EveryField_WithItsProtoName) {
  const nlohmann::json json = ToJson(ModelListing());
  EXPECT_EQ(json["source_location"], "model.py:37");
  EXPECT_EQ(json["file"], "model.py");
  EXPECT_EQ(json["line"], 37);
  EXPECT_EQ(json["first_line"], 35);
  EXPECT_EQ(json["lines"].size(), 3u);
  EXPECT_EQ(json["registered"], false);
}

}  // namespace
}  // namespace optrace::cli
