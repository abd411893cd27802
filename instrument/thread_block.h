// Per-thread state of the instrumentation libraries (liboptrace_nvtx,
// liboptrace_cupti, liboptrace_torch), reachable in one load.
#ifndef OPTRACE_INSTRUMENT_THREAD_BLOCK_H_
#define OPTRACE_INSTRUMENT_THREAD_BLOCK_H_

#include <pthread.h>

#include <new>

namespace optrace::instrument {

// One zero-initialised T per thread, allocated on the thread's first use
// and freed when it exits. A thread_local T would cost a __tls_get_addr
// call per access (the library is loaded with dlopen, so its TLS is
// dynamic), more than the rest of an NVTX call or a PyTorch callback; and
// any TLS of the library that is accessed initial-exec puts the library's
// whole TLS block in the small static TLS reserve that glibc keeps for
// dlopen'ed libraries (a few KiB for the whole process; dlopen fails when
// it runs out). So the thread holds only this pointer, initial-exec, 8
// bytes.
// REQUIRES: T is trivially destructible and zero is its empty state.
// Thread rules: Get returns the calling thread's T.
template <typename T>
class ThreadBlock {
 public:
  // The calling thread's T, or nullptr when it cannot be allocated (out of
  // memory, or no thread-exit hook to free it): callers do without.
  static T* Get() {
    T* const block = tls_block_;
    return block != nullptr ? block : Allocate();
  }

 private:
  static T* Allocate() {
    pthread_once(&key_once_, [] { key_ok_ = pthread_key_create(&key_, &Free) == 0; });
    if (!key_ok_) return nullptr;
    T* const block = new (std::nothrow) T();
    if (block == nullptr) return nullptr;
    if (pthread_setspecific(key_, block) != 0) {
      delete block;
      return nullptr;
    }
    tls_block_ = block;
    return block;
  }
  static void Free(void* block) {
    tls_block_ = nullptr;
    delete static_cast<T*>(block);
  }

  static inline __thread T* tls_block_ __attribute__((tls_model("initial-exec"))) = nullptr;
  static inline pthread_once_t key_once_ = PTHREAD_ONCE_INIT;
  static inline pthread_key_t key_;
  static inline bool key_ok_ = false;
};

}  // namespace optrace::instrument

#endif  // OPTRACE_INSTRUMENT_THREAD_BLOCK_H_
