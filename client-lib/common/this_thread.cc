#include "common/this_thread.h"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace optrace {

void NameThisThread(const char* name) {
  char cut[16] = {};
  std::strncpy(cut, name, sizeof cut - 1);
  pthread_setname_np(pthread_self(), cut);
}

bool LowerThisThreadPriority(int steps) {
  // On Linux the priority of PRIO_PROCESS with a thread id is that
  // thread's alone.
  const auto tid = static_cast<id_t>(::gettid());
  errno = 0;
  const int now = ::getpriority(PRIO_PROCESS, tid);
  if (now == -1 && errno != 0) return false;
  return ::setpriority(PRIO_PROCESS, tid, std::min(19, now + steps)) == 0;
}

}  // namespace optrace
