// Steps (optrace.h: optrace_step_begin/end, optrace_step, optrace_step_finish;
// optrace.hpp: the out-of-line parts of Step, NextStep and FinishStep).
// A C step, and a boundary step, is an op named kStepName begun scoped
// through optrace_op_begin, so that its end restores the parent of the
// thread's scope stack as any C scoped op's does; a boundary step is the
// one that its thread's next boundary call ends. optrace::Step itself is
// inline in optrace.hpp, as ScopedOp is.
#include <atomic>
#include <cerrno>
#include <source_location>

#include "optrace/optrace.h"
#include "optrace/optrace.hpp"

namespace optrace {
namespace {

// 0 until the first step interns the name. Relaxed: the id is only a
// value; the string it names was published with release before Intern
// returned (as OpSite's ids).
std::atomic<uint32_t> g_step_name_id{0};

// The calling thread's boundary step: its op id (0: none is open) and the
// location its LAUNCH carried, for its COMPLETE. Steps are not on the
// per-op hot path, so this and the location cache below use the default
// TLS model (a call to reach them) rather than the per-op state's
// initial-exec.
struct BoundaryStep {
  uint64_t id;
  uint32_t srcloc_id;
};
thread_local BoundaryStep tls_boundary{0, 0};

// The calling thread's last kSize step locations, by the address of their
// file name (a string of the program, one per source file) and line; id 0
// is an empty slot.
struct LocationCache {
  static constexpr uint32_t kSize = 4;
  const char* file[kSize];
  uint32_t line[kSize];
  uint32_t id[kSize];
  uint32_t next;  // the slot the next miss replaces
};
thread_local LocationCache tls_locations{};

optrace_op_desc StepDesc(uint32_t srcloc_id) {
  return {detail::StepNameId(), 0, srcloc_id, OPTRACE_TARGET_CPU, 0, 0};
}

uint64_t BeginStep(uint32_t srcloc_id) {
  if (!detail::LevelEnabled(abi::LevelValue::kTrace)) return 0;
  const optrace_op_desc desc = StepDesc(srcloc_id);
  return optrace_op_begin(&desc, OPTRACE_OP_SCOPED);
}

void EndStep(uint64_t step_id, uint32_t srcloc_id) {
  if (step_id == 0) return;
  const optrace_op_desc desc = StepDesc(srcloc_id);
  optrace_op_end(&desc, step_id, 0);
}

void EndBoundaryStep() {
  BoundaryStep& open = tls_boundary;
  const BoundaryStep ending = open;
  open = {0, 0};
  EndStep(ending.id, ending.srcloc_id);
}

// Ends the open boundary step and begins the next at `srcloc_id`, which is
// only asked for when a step is begun (interning costs a lock).
template <typename SrclocId>
int NextBoundaryStep(SrclocId srcloc_id) {
  EndBoundaryStep();
  if (!detail::LevelEnabled(abi::LevelValue::kTrace)) return 0;
  const uint32_t srcloc = srcloc_id();
  const uint64_t id = BeginStep(srcloc);
  if (id == 0) return 0;  // the level changed under us
  tls_boundary = {id, srcloc};
  return detail::StepNameId() == abi::kStringTableFull ? -ENOSPC : 0;
}

}  // namespace

namespace detail {

uint32_t StepNameId() noexcept {
  const uint32_t cached = g_step_name_id.load(std::memory_order_relaxed);
  if (cached != 0) return cached;
  // Two threads may both intern it: they get the same id.
  const uint32_t id = Intern(kStepName);
  g_step_name_id.store(id, std::memory_order_relaxed);
  return id;
}

uint32_t StepSrclocId(const std::source_location& location) noexcept {
  LocationCache& cache = tls_locations;
  const char* const file = location.file_name();
  const uint32_t line = location.line();
  for (uint32_t i = 0; i < LocationCache::kSize; ++i) {
    if (cache.id[i] != 0 && cache.file[i] == file && cache.line[i] == line) return cache.id[i];
  }
  uint32_t id = 0;
  optrace_intern_location(file, line, &id);  // on failure id is "<string table full>"
  const uint32_t slot = cache.next++ % LocationCache::kSize;
  cache.file[slot] = file;
  cache.line[slot] = line;
  cache.id[slot] = id;
  return id;
}

int NextStepAt(const std::source_location& location) noexcept {
  return NextBoundaryStep([&] { return StepSrclocId(location); });
}

int FinishBoundaryStep() noexcept {
  EndBoundaryStep();
  return 0;
}

}  // namespace detail
}  // namespace optrace

extern "C" {

uint64_t optrace_step_begin(void) { return optrace::BeginStep(0); }

int optrace_step_end(uint64_t step_id) {
  optrace::EndStep(step_id, 0);
  return 0;
}

int optrace_step(void) {
  return optrace::NextBoundaryStep([] { return uint32_t{0}; });
}

int optrace_step_finish(void) { return optrace::detail::FinishBoundaryStep(); }

}  // extern "C"
