// The only translation unit that includes libtorch's headers (they take
// about a minute to compile).
//
// NDEBUG must match libtorch's own build (release): at::RecordFunction has
// a member only without NDEBUG, so a translation unit built without it sees
// another layout and reads garbage from inputs(). CMake defines it for this
// file whatever the build type.
#ifndef NDEBUG
#error "torch_tracer.cc must be built with NDEBUG, as libtorch is"
#endif

#include "torch/torch_tracer.h"

#include <ATen/core/ivalue.h>
#include <ATen/record_function.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>

#include "instrument/loss_counter.h"
#include "instrument/name_table.h"
#include "instrument/thread_block.h"
#include "optrace/optrace.h"
#include "torch/numbered_name.h"
#include "torch/op_id_cache.h"
#include "torch/op_tag.h"
#include "torch/python_caller.h"

namespace optrace::torch_ops {
namespace {

constexpr size_t kMaxDepth = 128;
constexpr size_t kMaxNames = 2048;
constexpr size_t kMaxTags = 4096;
constexpr auto kLevelPoll = std::chrono::milliseconds(10);

instrument::LossCounter g_callback_errors("optrace.torch.callback_errors");
instrument::LossCounter g_too_deep("optrace.torch.too_deep");
instrument::LossCounter g_names_over_cap("optrace.torch.names_over_cap",
                                         instrument::LossKind::kNameCapped);
instrument::LossCounter g_tags_over_cap("optrace.torch.tags_over_cap",
                                        instrument::LossKind::kNameCapped);

instrument::NameTable& Names() {
  static instrument::NameTable* table = new instrument::NameTable(kMaxNames, g_names_over_cap);
  return *table;
}
instrument::NameTable& Tags() {
  static instrument::NameTable* table = new instrument::NameTable(kMaxTags, g_tags_over_cap);
  return *table;
}

// One op this thread began and has not ended, innermost last.
struct OpenOp {
  const at::RecordFunction* fn;
  optrace_op_desc desc;
  uint64_t id;
  bool user_scope;  // Python runs inside it: ops begun in it find their own line
};
// A thread's open ops (zero: none).
struct OpStack {
  size_t depth;
  OpenOp ops[kMaxDepth];
};

std::string_view DtypeName(c10::ScalarType type) {
  switch (type) {
    case c10::ScalarType::Float:
      return "f32";
    case c10::ScalarType::Double:
      return "f64";
    case c10::ScalarType::Half:
      return "f16";
    case c10::ScalarType::BFloat16:
      return "bf16";
    case c10::ScalarType::Long:
      return "i64";
    case c10::ScalarType::Int:
      return "i32";
    case c10::ScalarType::Short:
      return "i16";
    case c10::ScalarType::Char:
      return "i8";
    case c10::ScalarType::Byte:
      return "u8";
    case c10::ScalarType::Bool:
      return "i1";
    case c10::ScalarType::ComplexFloat:
      return "c64";
    case c10::ScalarType::ComplexDouble:
      return "c128";
    default:
      return "";
  }
}

// The name and tag ids of op `name` with tensor inputs of `shapes` (the
// first kTaggedShapes) and `dtype`: the ones this thread's cache holds when
// it ran the same op with the same inputs before, else interned (and
// cached unless a cap gave a placeholder, so that each op beyond a cap is
// counted as such).
OpIds IdsOf(std::string_view name, std::span<const TensorShape> shapes, std::string_view dtype) {
  OpIdCache* const cache = instrument::ThreadBlock<OpIdCache>::Get();
  OpKey key;
  const bool cacheable = cache != nullptr && key.Pack(name, shapes, dtype);
  const uint64_t hash = cacheable ? key.Hash() : 0;
  if (cacheable) {
    if (const OpIds* const cached = cache->Find(key, hash)) return *cached;
  }
  OpIds ids{Names().Id(name), 0};
  char tag[kMaxTagBytes];
  const size_t tag_bytes = OpTag(name, shapes, dtype, tag);
  if (tag_bytes != 0) ids.tag_id = Tags().Id(std::string_view(tag, tag_bytes));
  if (cacheable && !Names().IsPlaceholder(ids.name_id) &&
      (tag_bytes == 0 || !Tags().IsPlaceholder(ids.tag_id))) {
    cache->Insert(key, hash, ids);
  }
  return ids;
}

// Names and tags a FUNCTION or BACKWARD_FUNCTION op by its name and its
// first kTaggedShapes tensor inputs, whose device gives its target.
void DescribeFunction(const at::RecordFunction& fn, optrace_op_desc& desc) {
  TensorShape shapes[kTaggedShapes];
  size_t shape_count = 0;
  std::string_view dtype;
  for (const c10::IValue& input : fn.inputs()) {
    if (shape_count == kTaggedShapes) break;
    if (!input.isTensor()) continue;
    const at::Tensor& tensor = input.toTensor();
    // Undefined tensors have no sizes; nested ones throw from sizes().
    if (!tensor.defined() || tensor.is_nested()) continue;
    if (shape_count == 0) {
      dtype = DtypeName(tensor.scalar_type());
      const c10::Device device = tensor.device();
      if (device.is_cuda()) {
        desc.target = OPTRACE_TARGET_GPU;
        desc.device = static_cast<uint16_t>(device.index() < 0 ? 0 : device.index());
      } else if (!device.is_cpu()) {
        desc.target = OPTRACE_TARGET_OTHER;
      }
    }
    const c10::IntArrayRef sizes = tensor.sizes();
    shapes[shape_count++].sizes = std::span<const int64_t>(sizes.data(), sizes.size());
  }
  const OpIds ids = IdsOf(fn.name(), std::span<const TensorShape>(shapes, shape_count), dtype);
  desc.name_id = ids.name_id;
  desc.tag_id = ids.tag_id;
}

// Names a USER_SCOPE range (record_function, Optimizer.step#SGD.step,
// ProfilerStep#N) as PyTorch names it, untagged: its inputs are at most a
// string. A numbered name is named by its stem; returns its number, which
// BeginOp records as a counter sample of the range.
std::optional<int64_t> DescribeUserScope(const at::RecordFunction& fn, optrace_op_desc& desc) {
  const std::string_view name = fn.name();
  const std::optional<NumberedName> numbered = SplitNumberedName(name);
  desc.name_id = IdsOf(numbered ? numbered->stem : name, {}, {}).name_id;
  if (!numbered) return std::nullopt;
  return numbered->number;
}

// Not guarded by optrace_ops_enabled(): the callback runs only while the
// level is trace (FollowLevel), and optrace_op_begin checks it again; in
// the few ms after the level falls an op costs its ids and is not recorded.
void BeginOp(const at::RecordFunction& fn) {
  OpStack* const stack_block = instrument::ThreadBlock<OpStack>::Get();
  if (stack_block == nullptr) return;  // out of memory: not recorded
  OpStack& stack = *stack_block;
  if (stack.depth == kMaxDepth) {
    g_too_deep.Add();
    return;
  }
  optrace_op_desc desc{};
  desc.target = OPTRACE_TARGET_CPU;
  const bool user_scope = fn.scope() == at::RecordScope::USER_SCOPE;
  std::optional<int64_t> number;
  if (user_scope) {
    number = DescribeUserScope(fn, desc);
  } else {
    DescribeFunction(fn, desc);
  }
  // Ops nested in an op were called from the same Python line as the
  // outermost one; inside a user scope, Python went on to other lines.
  const OpenOp* const enclosing = stack.depth == 0 ? nullptr : &stack.ops[stack.depth - 1];
  desc.srcloc_id = enclosing == nullptr || enclosing->user_scope ? CallerLocationId()
                                                                 : enclosing->desc.srcloc_id;
  const uint64_t id = optrace_op_begin(&desc, OPTRACE_OP_SCOPED);
  if (id == 0) return;
  stack.ops[stack.depth++] = OpenOp{&fn, desc, id, user_scope};
  // Right after the LAUNCH: an instant's parent is the innermost scoped op
  // open on the thread, this range.
  if (number) optrace_counter(OPTRACE_LEVEL_TRACE, desc.name_id, *number);
}

void EndOp(const at::RecordFunction& fn) {
  OpStack* const stack_block = instrument::ThreadBlock<OpStack>::Get();
  if (stack_block == nullptr) return;
  OpStack& stack = *stack_block;
  // Usually the innermost op. Ops above it are ones whose end ran on
  // another thread (async): they stay open, as incomplete spans. Not found:
  // begun while untraced, or begun on another thread.
  for (size_t i = stack.depth; i-- > 0;) {
    if (stack.ops[i].fn != &fn) continue;
    stack.depth = i;
    optrace_op_end(&stack.ops[i].desc, stack.ops[i].id, 0);
    return;
  }
}

std::unique_ptr<at::ObserverContext> OnStart(const at::RecordFunction& fn) {
  try {
    BeginOp(fn);
  } catch (...) {
    g_callback_errors.Add();
  }
  return nullptr;
}

void OnEnd(const at::RecordFunction& fn, at::ObserverContext* /*context*/) {
  try {
    EndOp(fn);
  } catch (...) {
    g_callback_errors.Add();
  }
}

// The registered callback and whether it is enabled now.
struct Registration {
  std::mutex mu;
  bool registered = false;  // GUARDED_BY(mu)
  at::CallbackHandle handle = 0;
  std::atomic<bool> enabled{false};
};
Registration& TheRegistration() {
  static Registration* registration = new Registration();
  return *registration;
}

// Follows the live level: the callback costs about 90 ns per op even when
// it records nothing, so it is disabled while ops are not traced.
void FollowLevel() {
  Registration& r = TheRegistration();
  const bool want = optrace_get_level() >= OPTRACE_LEVEL_TRACE;
  if (want == r.enabled.load(std::memory_order_relaxed)) return;
  if (want) {
    at::reenableCallback(r.handle);
  } else {
    at::disableCallback(r.handle);
  }
  r.enabled.store(want, std::memory_order_relaxed);
}

void StartLevelWatcher() {
  std::thread([] {
    for (;;) {
      try {
        FollowLevel();
      } catch (...) {
        g_callback_errors.Add();
      }
      std::this_thread::sleep_for(kLevelPoll);
    }
  }).detach();
}

}  // namespace
}  // namespace optrace::torch_ops

int optrace_torch_enable(const char* internal_prefix) {
  using namespace optrace::torch_ops;
  Registration& r = TheRegistration();
  std::lock_guard lock(r.mu);
  if (r.registered) return 1;
  try {
    SetInternalPathPrefix(internal_prefix != nullptr ? internal_prefix : "");
    // One callback for ops and user scopes: libtorch hands a RecordFunction
    // the callbacks of its own scope only (StepCallbacks per scope), so
    // listing USER_SCOPE adds no work to an op, and one handle turns both
    // off. Asking for inputs costs a user scope something only when
    // record_function is given its args string (docs/BENCHMARKS.md,
    // "PyTorch user scopes").
    r.handle = at::addGlobalCallback(
        at::RecordFunctionCallback(OnStart, OnEnd)
            .needsInputs(true)
            .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION,
                     at::RecordScope::USER_SCOPE}));
    r.enabled.store(true, std::memory_order_relaxed);
    FollowLevel();
    r.registered = true;
  } catch (...) {
    g_callback_errors.Add();
    return -1;
  }
  StartLevelWatcher();
  // A forked child has only the forking thread: it needs a watcher of its own.
  pthread_atfork(nullptr, nullptr, [] { StartLevelWatcher(); });
  return 0;
}

void optrace_torch_get_losses(optrace_torch_losses* out) {
  using namespace optrace::torch_ops;
  out->callback_errors = g_callback_errors.value();
  out->too_deep = g_too_deep.value();
  out->names_over_cap = g_names_over_cap.value();
  out->tags_over_cap = g_tags_over_cap.value();
}

int optrace_torch_callback_enabled(void) {
  return optrace::torch_ops::TheRegistration().enabled.load(std::memory_order_relaxed) ? 1 : 0;
}
