// FleetCursor: round trips, and refuses what the daemon did not make.
#include "fleet/fleet_cursor.h"

#include <gtest/gtest.h>

#include <limits>

namespace optrace::daemon {
namespace {

TEST(FleetCursorTest, EncodeDecode_AnyNodeAndExtremes_RoundTrip) {
  const FleetCursor cursor{std::numeric_limits<int64_t>::min(), std::string("a:b\0\xff", 5),
                           std::numeric_limits<uint64_t>::max(), 0,
                           std::numeric_limits<uint32_t>::max()};
  const std::string text = EncodeFleetCursor(cursor);
  EXPECT_EQ(text.rfind("fleet:", 0), 0u);
  Result<FleetCursor> decoded = DecodeFleetCursor(text);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded.value(), cursor);
}

TEST(FleetCursorTest, Malicious_OtherShapes_InvalidArgument) {
  for (const char* bad :
       {"", "12:3:1", "fleet:", "fleet:1:2:3:4", "fleet:1:2:3:4:6", "fleet:1:2:3:4:zz",
        "fleet:x:2:3:4:61", "fleet:1:2:3:4294967296:61", "fleet:1:2:3:4:61:62"}) {
    Result<FleetCursor> decoded = DecodeFleetCursor(bad);
    EXPECT_FALSE(decoded.ok()) << bad;
    if (!decoded.ok()) {
      EXPECT_NE(decoded.status().message().find("is not one this daemon returned"),
                std::string::npos);
    }
  }
  EXPECT_FALSE(DecodeFleetCursor("fleet:1:2:3:4:" + std::string(512, 'a')).ok()) << "node > 255";
}

}  // namespace
}  // namespace optrace::daemon
