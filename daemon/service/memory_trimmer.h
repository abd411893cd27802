// Gives memory the daemon freed back to the kernel. glibc keeps what a
// burst freed in its arenas (a load of millions of events, a flood of
// requests) long after the burst; a thread of its own trims the arenas
// every few seconds, so that RSS follows what the daemon holds now. It
// also fixes glibc's mmap threshold at kMmapThreshold: left dynamic, glibc
// raises it after each free of a big block, and the store batches (MiBs
// each) then come from the heaps and fragment them.
#ifndef OPTRACE_DAEMON_SERVICE_MEMORY_TRIMMER_H_
#define OPTRACE_DAEMON_SERVICE_MEMORY_TRIMMER_H_

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace optrace::daemon {

// Thread rules: construct and destroy on one thread; the trimming runs on
// a thread of its own. Under another allocator (LD_PRELOAD) malloc_trim
// is glibc's and does nothing to it.
class MemoryTrimmer {
 public:
  explicit MemoryTrimmer(std::chrono::milliseconds interval);
  static constexpr int kMmapThreshold = 256 << 10;
  ~MemoryTrimmer();  // stops and joins the thread
  MemoryTrimmer(const MemoryTrimmer&) = delete;
  MemoryTrimmer& operator=(const MemoryTrimmer&) = delete;

 private:
  void Run();

  const std::chrono::milliseconds interval_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;  // GUARDED_BY(mu_)
  std::thread thread_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_SERVICE_MEMORY_TRIMMER_H_
