#include "metrics/process_metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace optrace::daemon {
namespace {

// utime + stime of /proc/self/stat (fields 14 and 15, after the command
// name in parentheses, which may hold spaces), in seconds.
std::optional<double> CpuSeconds() {
  std::ifstream in("/proc/self/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  uint64_t utime = 0, stime = 0;
  // After ')': state is field 3, so utime (14) is the 12th from here.
  for (int i = 3; i <= 13; ++i) fields >> field;
  if (!(fields >> utime >> stime)) return std::nullopt;
  const long ticks = ::sysconf(_SC_CLK_TCK);
  if (ticks <= 0) return std::nullopt;
  return static_cast<double>(utime + stime) / static_cast<double>(ticks);
}

// The second field of /proc/self/statm (resident pages), in bytes.
std::optional<uint64_t> ResidentBytes() {
  std::ifstream in("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  if (!(in >> size >> resident)) return std::nullopt;
  const long page = ::sysconf(_SC_PAGESIZE);
  if (page <= 0) return std::nullopt;
  return resident * static_cast<uint64_t>(page);
}

std::optional<uint64_t> OpenFds() {
  std::error_code ec;
  uint64_t n = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
       it.increment(ec)) {
    ++n;
  }
  if (ec) return std::nullopt;
  return n > 0 ? n - 1 : 0;  // less the iterator's own fd
}

}  // namespace

void WriteProcessMetrics(MetricsText* out) {
  if (const auto cpu = CpuSeconds()) {
    out->Family("process_cpu_seconds_total", "counter", "User and system CPU time of optraced.");
    out->Sample("process_cpu_seconds_total", {}, *cpu);
  }
  if (const auto rss = ResidentBytes()) {
    out->Family("process_resident_memory_bytes", "gauge", "Resident memory of optraced.");
    out->Sample("process_resident_memory_bytes", {}, *rss);
  }
  if (const auto fds = OpenFds()) {
    out->Family("process_open_fds", "gauge", "Open file descriptors of optraced.");
    out->Sample("process_open_fds", {}, *fds);
  }
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    out->Family("process_max_fds", "gauge", "optraced's soft limit on open file descriptors.");
    out->Sample("process_max_fds", {}, static_cast<uint64_t>(limit.rlim_cur));
  }
}

}  // namespace optrace::daemon
