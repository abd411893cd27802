// optraced's long-lived threads carry names, so that `top -H` and
// `ps -L` tell the drain from the writer; they all run at the process's
// priority (a writer 10 nice levels below the drain was tried: beside two
// busy producer threads the drain then lost more events to full rings,
// not fewer).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "reliability_harness.h"
#include "temp_folder.h"

namespace optrace::testing {
namespace {

// Thread name -> nice value, for every thread of `pid` (/proc/PID/task).
std::map<std::string, int> ThreadNiceByName(pid_t pid) {
  std::map<std::string, int> nice;
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& task : std::filesystem::directory_iterator(tasks)) {
    std::string name;
    std::getline(std::ifstream(task.path() / "comm"), name);
    std::string stat;
    std::getline(std::ifstream(task.path() / "stat"), stat);
    // Fields after the command's closing parenthesis; nice is field 19.
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));
    std::string field;
    for (int i = 3; i <= 19 && fields >> field; ++i) {
      if (i == 19) nice[name] = std::stoi(field);
    }
  }
  return nice;
}

TEST(ThreadNamesTest, DrainWriterAndTailNotifierNamed_AtOnePriority) {
  TempFolder folder;
  DaemonProcess daemon(folder.path());
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  const pid_t pid = DaemonPid(daemon);
  ASSERT_GT(pid, 0);
  // Each thread names itself once it runs: on a loaded machine that can
  // come after the daemon answers.
  std::map<std::string, int> nice;
  WaitUntil(
      [&] {
        nice = ThreadNiceByName(pid);
        return nice.count("optrace-drain") && nice.count("optrace-writer") &&
               nice.count("optrace-tails");
      },
      std::chrono::seconds(10));
  ASSERT_TRUE(nice.count("optrace-drain")) << "threads: " << nice.size();
  ASSERT_TRUE(nice.count("optrace-writer"));
  ASSERT_TRUE(nice.count("optrace-tails"));
  EXPECT_EQ(nice.at("optrace-writer"), nice.at("optrace-drain"));
  EXPECT_EQ(nice.at("optrace-tails"), nice.at("optrace-drain"));
  EXPECT_EQ(daemon.Stop(), 0) << daemon.log();
}

}  // namespace
}  // namespace optrace::testing
