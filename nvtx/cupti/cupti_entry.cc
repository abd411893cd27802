// liboptrace_cupti.so's entry point: the CUDA driver loads the library
// named by CUDA_INJECTION64_PATH when the process initialises CUDA
// (cuInit) and calls InitializeInjection, before any kernel can run.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "nvtx/cupti/cupti_collector.h"
#include "optrace/export.h"
#include "optrace/optrace.hpp"

namespace {

// Runs before liboptrace's own exit handler (registered earlier, so run
// later), while the process's segment still takes events.
void FlushAtExit() { optrace::nvtx::CuptiCollector::Get().Flush(); }

}  // namespace

// Returns 1 when activity collection started, 0 (with the reason on
// stderr) when CUPTI refused; the application runs on either way.
extern "C" OPTRACE_EXPORT int InitializeInjection(void) {
  try {
    // Start liboptrace first, so that its exit handler is registered
    // before ours (atexit handlers run in reverse order).
    optrace::GetLevel();
    std::string error;
    if (!optrace::nvtx::CuptiCollector::Get().Start(&error)) {
      std::fprintf(stderr, "optrace: CUDA activity is not traced: %s\n", error.c_str());
      return 0;
    }
    if (!error.empty()) std::fprintf(stderr, "optrace: %s\n", error.c_str());
    std::atexit(&FlushAtExit);
    return 1;
  } catch (...) {
    return 0;
  }
}
