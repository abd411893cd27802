#include "optrace/reader/shm_fault_guard.h"

#include <setjmp.h>
#include <signal.h>

#include <cstring>
#include <mutex>

namespace optrace::reader {
namespace {

struct GuardState {
  sigjmp_buf jump;
  const char* begin;
  const char* end;
  bool active;
};
__thread GuardState tls_guard;

struct sigaction g_previous_bus;
struct sigaction g_previous_segv;

void Forward(int sig, siginfo_t* info, void* uctx) {
  const struct sigaction& prev = sig == SIGBUS ? g_previous_bus : g_previous_segv;
  if ((prev.sa_flags & SA_SIGINFO) != 0 && prev.sa_sigaction != nullptr) {
    prev.sa_sigaction(sig, info, uctx);
    return;
  }
  if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN && prev.sa_handler != nullptr) {
    prev.sa_handler(sig);
    return;
  }
  // Default action: restore it and return; the faulting instruction runs
  // again and the process dies with the original signal and core dump.
  signal(sig, SIG_DFL);
}

void OnFault(int sig, siginfo_t* info, void* uctx) {
  GuardState& g = tls_guard;
  const char* addr = static_cast<const char*>(info->si_addr);
  if (g.active && addr >= g.begin && addr < g.end) {
    g.active = false;
    siglongjmp(g.jump, 1);
  }
  Forward(sig, info, uctx);
}

}  // namespace

void InstallShmFaultHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = &OnFault;
    // SA_NODEFER: we leave the handler by siglongjmp without restoring the
    // mask (sigsetjmp(.., 0) is cheap), so the signal must not stay blocked.
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &g_previous_bus);
    sigaction(SIGSEGV, &sa, &g_previous_segv);
  });
}

bool GuardedCall(const void* range_begin, size_t range_bytes, void (*fn)(void*), void* ctx) {
  GuardState& g = tls_guard;
  g.begin = static_cast<const char*>(range_begin);
  g.end = g.begin + range_bytes;
  if (sigsetjmp(g.jump, 0) != 0) return false;  // a fault in the range
  g.active = true;
  fn(ctx);
  g.active = false;
  return true;
}

bool GuardedCopy(const void* range_begin, size_t range_bytes, void* dst, const void* src,
                 size_t bytes) {
  struct Args {
    void* dst;
    const void* src;
    size_t bytes;
  } args{dst, src, bytes};
  return GuardedCall(
      range_begin, range_bytes,
      [](void* p) {
        auto* a = static_cast<Args*>(p);
        std::memcpy(a->dst, a->src, a->bytes);
      },
      &args);
}

}  // namespace optrace::reader
