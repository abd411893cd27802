// main() for optrace test binaries: gives the process (and every child it
// starts) a namespace of its own, so that tests never see the segments of
// other tests or of a daemon running on the machine.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
  const std::string ns = "optest" + std::to_string(::getpid());
  ::setenv("OPTRACE_NAMESPACE", ns.c_str(), 1);
  ::unsetenv("OPTRACE_LEVEL");
  ::unsetenv("OPTRACE_SINK");
  ::unsetenv("OPTRACE_SESSION");
  ::testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
  // Segments of producers the tests killed, and control segments of
  // daemons they killed, stay in /dev/shm: remove everything of our
  // namespace.
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm", ec)) {
    if (entry.path().filename().string().rfind(ns + ".", 0) == 0) {
      std::filesystem::remove(entry.path(), ec);
    }
  }
  return result;
}
