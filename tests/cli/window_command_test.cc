// `optrace window`'s request and words: a bound not given stays as the
// window in force has it; --default asks for the daemon's; the line says
// the bounds and whose window it is.
#include "window_command.h"

#include <gtest/gtest.h>

namespace optrace::cli {
namespace {

v1::Window MakeWindow(uint64_t keep_last_ns, uint64_t keep_last_bytes, bool own) {
  v1::Window window;
  window.set_keep_last_ns(keep_last_ns);
  window.set_keep_last_bytes(keep_last_bytes);
  window.set_own(own);
  return window;
}

TEST(WindowRequestTest, OneBoundGiven_OtherKeptFromTheWindowInForce) {
  const v1::Window daemon = MakeWindow(600'000'000'000, 256ULL << 20, false);
  const v1::SetWindowRequest time = WindowRequest(
      12, daemon, {.keep_last_ns = 3'600'000'000'000, .keep_last_bytes = std::nullopt});
  EXPECT_EQ(time.session_id(), 12u);
  EXPECT_EQ(time.keep_last_ns(), 3'600'000'000'000u);
  EXPECT_EQ(time.keep_last_bytes(), 256ULL << 20);
  EXPECT_FALSE(time.use_default());
  const v1::SetWindowRequest all =
      WindowRequest(12, daemon, {.keep_last_ns = 0, .keep_last_bytes = 0});
  EXPECT_EQ(all.keep_last_ns(), 0u);
  EXPECT_EQ(all.keep_last_bytes(), 0u);
}

TEST(WindowRequestTest, Default_AsksForTheDaemonsWithNoBounds) {
  const v1::SetWindowRequest request = WindowRequest(
      3, MakeWindow(1, 2, true),
      {.keep_last_ns = std::nullopt, .keep_last_bytes = std::nullopt, .use_default = true});
  EXPECT_TRUE(request.use_default());
  EXPECT_EQ(request.keep_last_ns(), 0u) << "the daemon refuses bounds beside use_default";
  EXPECT_EQ(request.keep_last_bytes(), 0u);
}

TEST(WindowLineTest, BoundsAndWhose) {
  EXPECT_EQ(RenderWindowLine(12, MakeWindow(30'000'000'000, 64ULL << 20, true)),
            "session 12: keeps the last 30.0 s, at most 64.0 MiB (its own window)\n");
  EXPECT_EQ(DescribeWindow(MakeWindow(600'000'000'000, 0, false)),
            "keeps the last 600 s (the daemon's window)");
  EXPECT_EQ(DescribeWindow(MakeWindow(0, 1ULL << 30, false)),
            "keeps at most 1.00 GiB (the daemon's window)");
  EXPECT_EQ(DescribeWindow(MakeWindow(0, 0, true)), "keeps all it stores (its own window)");
}

}  // namespace
}  // namespace optrace::cli
