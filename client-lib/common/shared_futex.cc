#include "common/shared_futex.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

namespace optrace {

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));

bool SharedFutexWait(const std::atomic<uint32_t>* word, uint32_t expected, uint64_t timeout_ns) {
  timespec timeout{static_cast<time_t>(timeout_ns / 1'000'000'000ULL),
                   static_cast<long>(timeout_ns % 1'000'000'000ULL)};
  const long rc = ::syscall(SYS_futex, reinterpret_cast<const uint32_t*>(word), FUTEX_WAIT,
                            expected, timeout_ns == 0 ? nullptr : &timeout, nullptr, 0);
  return rc == 0 || errno != ETIMEDOUT;
}

int SharedFutexWake(const std::atomic<uint32_t>* word, int count) {
  return static_cast<int>(::syscall(SYS_futex, reinterpret_cast<const uint32_t*>(word), FUTEX_WAKE,
                                    count, nullptr, nullptr, 0));
}

}  // namespace optrace
