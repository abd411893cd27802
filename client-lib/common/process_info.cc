#include "common/process_info.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace optrace {
namespace {

// Reads at most `max_bytes` of a small /proc file into a string.
std::optional<std::string> ReadSmallFile(const std::string& path, size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buf[4096];
  while (out.size() < max_bytes) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (out.size() > max_bytes) out.resize(max_bytes);
  return out;
}

}  // namespace

std::optional<uint64_t> ProcessStartTicks(pid_t pid) {
  const auto stat = ReadSmallFile("/proc/" + std::to_string(pid) + "/stat", 4096);
  if (!stat) return std::nullopt;
  // The command name (field 2) may contain spaces and ')'; fields after the
  // last ')' are plain numbers. Field 3 (state) follows it.
  const size_t close = stat->rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::string_view rest(*stat);
  rest.remove_prefix(close + 1);
  int field = 2;
  size_t i = 0;
  while (i < rest.size()) {
    while (i < rest.size() && rest[i] == ' ') ++i;
    const size_t start = i;
    while (i < rest.size() && rest[i] != ' ') ++i;
    if (start == i) break;
    ++field;
    if (field == 22) {
      const std::string token(rest.substr(start, i - start));
      char* end = nullptr;
      const unsigned long long v = std::strtoull(token.c_str(), &end, 10);
      if (end == token.c_str() || *end != '\0') return std::nullopt;
      return static_cast<uint64_t>(v);
    }
  }
  return std::nullopt;
}

std::optional<uint32_t> ProcessRealUid(pid_t pid) {
  const auto status = ReadSmallFile("/proc/" + std::to_string(pid) + "/status", 8192);
  if (!status) return std::nullopt;
  constexpr std::string_view kUidLine = "\nUid:";
  const size_t at = status->find(kUidLine);
  if (at == std::string::npos) return std::nullopt;
  const char* start = status->c_str() + at + kUidLine.size();
  char* end = nullptr;
  const unsigned long uid = std::strtoul(start, &end, 10);
  if (end == start || uid > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(uid);
}

std::string ProcessExecutable(pid_t pid) {
  char buf[4096];
  const std::string link = "/proc/" + std::to_string(pid) + "/exe";
  const ssize_t n = ::readlink(link.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return {};
  return std::string(buf, static_cast<size_t>(n));
}

std::string ProcessCommandLine(pid_t pid, size_t max_bytes) {
  return ReadSmallFile("/proc/" + std::to_string(pid) + "/cmdline", max_bytes).value_or("");
}

uint32_t CurrentThreadId() { return static_cast<uint32_t>(::syscall(SYS_gettid)); }

}  // namespace optrace
