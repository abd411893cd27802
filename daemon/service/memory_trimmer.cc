#include "service/memory_trimmer.h"

#include <malloc.h>

namespace optrace::daemon {

MemoryTrimmer::MemoryTrimmer(std::chrono::milliseconds interval)
    : interval_(interval), thread_([this] { Run(); }) {
  ::mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
}

MemoryTrimmer::~MemoryTrimmer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void MemoryTrimmer::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, interval_, [this] { return stop_; })) {
    lock.unlock();
    // Releases the free tops of the heaps and the free pages inside them,
    // in every arena.
    ::malloc_trim(0);
    lock.lock();
  }
}

}  // namespace optrace::daemon
