#include "ui/browser_fixture.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

namespace optrace::cli::testing {

void BrowserFixture::SetUp() {
  if (::access(kChromium, X_OK) != 0) {
    GTEST_SKIP() << kChromium << " is not installed (apt-get install chromium; "
                 << "deploy/install-deps.sh installs it)";
  }
  CliTest::SetUp();
  runtime_ = folder_.path() + "/runtime";
  ASSERT_EQ(::mkdir(runtime_.c_str(), 0700), 0);
  const char* keep = std::getenv("OPTRACE_UI_SCREENSHOTS");
  shots_ = keep != nullptr && *keep != '\0' ? keep : folder_.path();
}

void ExpectDrawnPng(const std::string& png, const std::string& name) {
  ASSERT_GE(png.size(), 8u) << name;
  EXPECT_EQ(png.substr(0, 8), "\x89PNG\r\n\x1a\n") << name;
  EXPECT_GT(png.size(), 20'000u) << name << " looks blank";
}

}  // namespace optrace::cli::testing
