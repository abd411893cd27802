#include "service/fd_limit.h"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>

namespace optrace::daemon {
namespace {

std::string LimitText(rlim_t limit) {
  return limit == RLIM_INFINITY ? "unlimited" : std::to_string(limit);
}

}  // namespace

std::string RaiseFdLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return std::string("open files: cannot read the limit: ") + std::strerror(errno);
  }
  if (limit.rlim_cur == limit.rlim_max) return "open files: " + LimitText(limit.rlim_cur);
  const rlim_t before = limit.rlim_cur;
  limit.rlim_cur = limit.rlim_max;
  if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return "open files: " + LimitText(before) + ", not raised to " + LimitText(limit.rlim_max) +
           ": " + std::strerror(errno);
  }
  return "open files: " + LimitText(before) + " -> " + LimitText(limit.rlim_max);
}

}  // namespace optrace::daemon
