// main() for optrace test binaries: gives the process (and every child it
// starts) a namespace of its own, so that tests never see the segments of
// other tests or of a daemon running on the machine.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  const std::string ns = "optest" + std::to_string(::getpid());
  ::setenv("OPTRACE_NAMESPACE", ns.c_str(), 1);
  ::unsetenv("OPTRACE_LEVEL");
  ::unsetenv("OPTRACE_SINK");
  ::unsetenv("OPTRACE_SESSION");
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
