// One thread's open nvtxRangePush ranges: NVTX keeps a push/pop stack per
// thread and per domain, and nvtxRangePop names no range, so we must
// remember which range (and op) each pop ends.
#ifndef OPTRACE_NVTX_PUSH_STACK_H_
#define OPTRACE_NVTX_PUSH_STACK_H_

#include <cstdint>

#include "instrument/thread_block.h"

namespace optrace::nvtx {

class Domain;

// One open pushed range.
struct PushedRange {
  uint64_t op_id;    // 0: not traced (level off when pushed, or too deep)
  uint32_t name_id;  // for its COMPLETE
  uint32_t tag_id;
  const Domain* domain;  // whose stack it is on
  int32_t level;         // 0-based nesting level within its domain
};

// The open pushed ranges of one thread, of all domains, innermost last.
// Every push is kept, traced or not, so that pops pair with the right
// push whatever the live level did in between. Beyond kMaxDepth open
// ranges, further pushes are only counted (their pops then come first, in
// any domain) and never traced.
// Zero-initialised storage is an empty stack. Thread rules: one thread.
class PushStack {
 public:
  static constexpr int32_t kMaxDepth = 256;

  // Opens `range` (its `level` is ignored) and returns its level within
  // its domain, as nvtxRangePush does. Returns -1 when it is too deep to
  // keep: the caller must not trace it.
  inline int32_t Push(const PushedRange& range);

  // Closes the innermost open range of `domain` into `*closed` (op_id 0
  // for one too deep to keep). Returns false, changing nothing, when
  // `domain` has no open range: an unbalanced pop.
  inline bool Pop(const Domain* domain, PushedRange* closed);

  // True when the next push is too deep to keep.
  bool full() const { return depth_ == kMaxDepth; }

 private:
  PushedRange ranges_[kMaxDepth];
  int32_t depth_;     // kept ranges
  int32_t overflow_;  // pushes beyond kMaxDepth still open
};

// The calling thread's stack, nullptr when it cannot be allocated.
inline PushStack* ThisThreadPushStack() { return instrument::ThreadBlock<PushStack>::Get(); }

// Inline: every NVTX push and pop runs these, traced or not.

int32_t PushStack::Push(const PushedRange& range) {
  if (full()) {
    ++overflow_;
    return -1;
  }
  int32_t level = 0;
  for (int32_t i = depth_ - 1; i >= 0; --i) {
    if (ranges_[i].domain == range.domain) {
      level = ranges_[i].level + 1;
      break;
    }
  }
  // One whole-entry store: patching `level` after copying would leave a
  // partial store that Pop's wide load of the entry waits on.
  PushedRange entry = range;
  entry.level = level;
  ranges_[depth_] = entry;
  ++depth_;
  return level;
}

bool PushStack::Pop(const Domain* domain, PushedRange* closed) {
  if (overflow_ > 0) {
    --overflow_;
    *closed = PushedRange{0, 0, 0, domain, kMaxDepth + overflow_};
    return true;
  }
  for (int32_t i = depth_ - 1; i >= 0; --i) {
    if (ranges_[i].domain != domain) continue;
    *closed = ranges_[i];
    // Ranges of other domains pushed after it stay open, in order.
    for (int32_t j = i; j + 1 < depth_; ++j) ranges_[j] = ranges_[j + 1];
    --depth_;
    return true;
  }
  return false;
}

}  // namespace optrace::nvtx

#endif  // OPTRACE_NVTX_PUSH_STACK_H_
