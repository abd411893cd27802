// The floor of any RecordFunction-based tracer, for tests/bench/torch_cost.py:
// a global callback that asks for its op's inputs and does nothing but
// count. Loaded with ctypes. Built with NDEBUG, as libtorch is (see
// torch/torch_tracer.cc).
#include <ATen/record_function.h>

#include <atomic>
#include <cstdint>

namespace {

std::atomic<uint64_t> g_ops{0};

std::unique_ptr<at::ObserverContext> CountStart(const at::RecordFunction& fn) {
  (void)fn.inputs();
  g_ops.fetch_add(1, std::memory_order_relaxed);
  return nullptr;
}

void NothingAtEnd(const at::RecordFunction&, at::ObserverContext*) {}

}  // namespace

// Registers the callback (FUNCTION and BACKWARD_FUNCTION scopes, inputs).
extern "C" __attribute__((visibility("default"))) void optrace_bench_floor_enable() {
  at::addGlobalCallback(
      at::RecordFunctionCallback(CountStart, NothingAtEnd)
          .needsInputs(true)
          .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
}

// The ops the callback saw so far.
extern "C" __attribute__((visibility("default"))) uint64_t optrace_bench_floor_ops() {
  return g_ops.load(std::memory_order_relaxed);
}
