// What NVTX events become in optrace: pushed ranges are scoped ops,
// started ranges are asynchronous ops, marks are instants, messages are
// names, domains and categories are tags. The NVTX callbacks
// (injection_entry.cc) are thin adapters onto this class.
#ifndef OPTRACE_NVTX_NVTX_TRACER_H_
#define OPTRACE_NVTX_NVTX_TRACER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "instrument/loss_counter.h"
#include "instrument/name_table.h"
#include "nvtx/async_ranges.h"
#include "nvtx/domain_registry.h"
#include "nvtx/event_namer.h"
#include "nvtx/nvtx_api.h"
#include "nvtx/push_stack.h"
#include "optrace/optrace.h"
#include "optrace/optrace.hpp"
#include "optrace/step_range_mark.h"

namespace optrace::nvtx {

// Limits, from the environment (OPTRACE_NVTX_MAX_NAMES) or defaults.
struct TracerLimits {
  size_t max_names = 4096;  // distinct dynamic names and tags
  size_t max_domains = 256;
  size_t max_open_async = 1 << 16;  // started and not yet ended ranges
};

// Reads OPTRACE_NVTX_MAX_NAMES. A value that is not a positive count is
// reported on stderr once and the default is kept.
TracerLimits ReadTracerLimits();

// The name of the pushed ranges that are the program's steps
// (OPTRACE_NVTX_STEP_RANGE, which `optrace run --nvtx --step-range NAME`
// sets); "" when unset or empty.
std::string ReadStepRangeName();

// The process's NVTX-to-optrace mapping. Every event is recorded at level
// trace; when the live level is lower, an event costs one load and a
// branch (a push or pop also one entry of the thread's push stack, so that
// pops stay paired across level changes). What cannot be recorded
// faithfully is counted by cause (see the LossCounter names in the .cc).
// Methods never throw and are safe to call from any thread, as NVTX does.
class NvtxTracer {
 public:
  // The process-wide tracer, created on first use and never destroyed
  // (NVTX calls may come from static destructors and late threads).
  // After the first call: one load.
  static NvtxTracer& Get() {
    // Acquire pairs with the release store in Create: the tracer is fully
    // constructed for whoever sees the pointer.
    NvtxTracer* const tracer = instance_.load(std::memory_order_acquire);
    return tracer != nullptr ? *tracer : Create();
  }

  // A NameFn is called as `EventNames fn(EventNamer&)` only when the event
  // is recorded, so that a filtered event never looks at its message.

  // nvtxRangePush*: returns the range's level in `domain`, or -1 when the
  // range cannot be kept (the thread has too many open ranges, or no
  // memory for its stack); such a range is counted, never traced. A traced
  // range named as ReadStepRangeName says is marked as a step: a counter
  // named OPTRACE_STEP_RANGE_MARK_NAME right after its LAUNCH (its parent
  // is the range), valued 1, 2, ... in the process's order of such pushes.
  template <typename NameFn>
  int Push(Domain& domain, NameFn&& names_of) noexcept;
  // nvtxRangePop: ends the innermost open range of `domain` on this
  // thread; returns its level, or -1 when there is none.
  inline int Pop(Domain& domain) noexcept;

  // nvtxRangeStart*: returns the range id (the op id), 0 when not traced.
  template <typename NameFn>
  nvtxRangeId_t Start(NameFn&& names_of) noexcept;
  // nvtxRangeEnd, from any thread.
  void End(nvtxRangeId_t id) noexcept;

  // nvtxMark*.
  template <typename NameFn>
  void Mark(NameFn&& names_of) noexcept;

  // nvtxDomainCreate*: the handle of the domain named `name` (UTF-8,
  // bounded), or null (NVTX's default domain) for an empty name.
  nvtxDomainHandle_t CreateDomain(std::string_view name) noexcept;
  // The domain of a handle this tracer returned (null: the default one).
  Domain& DomainOf(nvtxDomainHandle_t handle) noexcept {
    // Every non-null handle the application holds came from CreateDomain:
    // NVTX routes all domain creation of the process to this tool.
    return handle == nullptr ? domains_.default_domain() : *reinterpret_cast<Domain*>(handle);
  }

  // nvtxNameCategory* / nvtxDomainNameCategory*.
  void NameCategory(Domain& domain, uint32_t category, std::string_view name) noexcept;

  // nvtxDomainRegisterString*: the handle of a message.
  template <typename NameFn>
  nvtxStringHandle_t RegisterString(NameFn&& name_of) noexcept;

 private:
  NvtxTracer(const TracerLimits& limits, const std::string& step_range);
  static NvtxTracer& Create();
  // The name id of `step_range`'s ranges; 0 for none (or past the cap).
  uint32_t StepRangeId(const std::string& step_range);
  // Marks the range just begun on this thread as a step (Push's slow part).
  void MarkStep() noexcept;
  // Ends the traced pushed range `closed` (Pop's slow part).
  void EndPushed(const PushedRange& closed) noexcept;

  static std::atomic<NvtxTracer*> instance_;

  // Calls names_of(namer_); an allocation failure names the event
  // "<string table full>".
  template <typename NameFn>
  EventNames NamesOf(NameFn&& names_of) noexcept;

  static optrace_op_desc DescOf(uint32_t name_id, uint32_t tag_id) {
    return {name_id, tag_id, 0, OPTRACE_TARGET_CPU, 0, 0};
  }

  instrument::LossCounter names_over_cap_{"optrace.nvtx.names_over_cap",
                                          instrument::LossKind::kNameCapped};
  instrument::LossCounter messages_truncated_{"optrace.nvtx.messages_truncated"};
  instrument::LossCounter malformed_attributes_{"optrace.nvtx.malformed_attributes"};
  instrument::LossCounter domains_over_cap_{"optrace.nvtx.domains_over_cap",
                                            instrument::LossKind::kNameCapped};
  instrument::LossCounter async_untracked_{"optrace.nvtx.async_ranges_untracked"};
  instrument::LossCounter pushes_not_kept_{"optrace.nvtx.pushes_not_kept"};  // too deep, no memory
  instrument::LossCounter unbalanced_pops_{"optrace.nvtx.unbalanced_pops"};
  instrument::LossCounter unknown_range_ends_{"optrace.nvtx.unknown_range_ends"};
  instrument::NameTable names_;
  DomainRegistry domains_;
  EventNamer namer_;
  AsyncRanges async_ranges_;
  // The name id of the step ranges (0: none), and of their mark.
  const uint32_t step_range_id_;
  const uint32_t step_mark_id_;
  std::atomic<int64_t> steps_marked_{0};
};

template <typename NameFn>
EventNames NvtxTracer::NamesOf(NameFn&& names_of) noexcept {
  try {
    return names_of(namer_);
  } catch (...) {
    return {abi::kStringTableFull, abi::kStringNone};
  }
}

template <typename NameFn>
int NvtxTracer::Push(Domain& domain, NameFn&& names_of) noexcept {
  PushStack* const stack = ThisThreadPushStack();
  if (stack == nullptr || stack->full()) {
    pushes_not_kept_.Add();
    if (stack != nullptr) stack->Push({});  // counted, so that its pop pairs
    return -1;
  }
  PushedRange range{0, 0, 0, &domain, 0};
  if (OpsEnabled()) {
    const EventNames names = NamesOf(names_of);
    const optrace_op_desc desc = DescOf(names.name_id, names.tag_id);
    range = {optrace_op_begin(&desc, OPTRACE_OP_SCOPED), names.name_id, names.tag_id, &domain, 0};
    if (names.name_id == step_range_id_ && range.op_id != 0) [[unlikely]]
      MarkStep();
  }
  return stack->Push(range);
}

int NvtxTracer::Pop(Domain& domain) noexcept {
  PushStack* const stack = ThisThreadPushStack();
  PushedRange closed;
  if (stack == nullptr || !stack->Pop(&domain, &closed)) {
    unbalanced_pops_.Add();
    return -1;
  }
  if (closed.op_id != 0) EndPushed(closed);
  return closed.level;
}

template <typename NameFn>
nvtxRangeId_t NvtxTracer::Start(NameFn&& names_of) noexcept {
  if (!OpsEnabled()) return 0;
  const EventNames names = NamesOf(names_of);
  const optrace_op_desc desc = DescOf(names.name_id, names.tag_id);
  const uint64_t id = optrace_op_begin(&desc, 0);
  if (id != 0) async_ranges_.Open(id, {names.name_id, names.tag_id});
  return id;
}

template <typename NameFn>
void NvtxTracer::Mark(NameFn&& names_of) noexcept {
  if (!OpsEnabled()) return;
  const EventNames names = NamesOf(names_of);
  optrace_mark(OPTRACE_LEVEL_TRACE, names.name_id, names.tag_id);
}

template <typename NameFn>
nvtxStringHandle_t NvtxTracer::RegisterString(NameFn&& name_of) noexcept {
  try {
    return EventNamer::HandleOf(name_of(namer_));
  } catch (...) {
    return EventNamer::HandleOf(abi::kStringTableFull);
  }
}

}  // namespace optrace::nvtx

#endif  // OPTRACE_NVTX_NVTX_TRACER_H_
