// liboptrace C++ API: trace ops (LAUNCH/COMPLETE pairs), instant marks and
// counters into this process's shared-memory segment, for optraced to drain.
//
//   static optrace::OpSite site("matmul");          // once per call site
//   {
//     optrace::ScopedOp op(site, optrace::Placement::Cpu(), tag_id);
//     ...                                            // LAUNCH here
//   }                                                // COMPLETE here
//
// or, for a call site written once:  OPTRACE_SCOPED_OP(op, "rms_norm");
// A loop iteration is a step: optrace::Step (scoped) or optrace::NextStep()
// at the top of each iteration and optrace::FinishStep() after the loop.
// optrace::Keep("oom") when something goes wrong keeps the trace around it.
//
// Nothing here ever blocks, throws or aborts: when the segment cannot be
// created or a ring is full, events are dropped and counted. When the live
// level is below trace, an op costs one load and a branch. Building with
// -DOPTRACE_COMPILE_LEVEL=info (or any level below trace) compiles op
// tracing out entirely.
#ifndef OPTRACE_OPTRACE_HPP_
#define OPTRACE_OPTRACE_HPP_

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <source_location>
#include <span>
#include <string>
#include <string_view>

#include "optrace/abi.h"
#include "optrace/detail/fast_path.h"
#include "optrace/export.h"
#include "optrace/optrace.h"

// Compile-time ceiling: OPTRACE_COMPILE_LEVEL may be a level name (off,
// error, warning, info, debug, trace) or its number 0..5. Default: trace.
#define OPTRACE_DETAIL_LEVEL_off 0
#define OPTRACE_DETAIL_LEVEL_error 1
#define OPTRACE_DETAIL_LEVEL_warning 2
#define OPTRACE_DETAIL_LEVEL_info 3
#define OPTRACE_DETAIL_LEVEL_debug 4
#define OPTRACE_DETAIL_LEVEL_trace 5
#define OPTRACE_DETAIL_LEVEL_0 0
#define OPTRACE_DETAIL_LEVEL_1 1
#define OPTRACE_DETAIL_LEVEL_2 2
#define OPTRACE_DETAIL_LEVEL_3 3
#define OPTRACE_DETAIL_LEVEL_4 4
#define OPTRACE_DETAIL_LEVEL_5 5
#define OPTRACE_DETAIL_CAT2(a, b) a##b
#define OPTRACE_DETAIL_CAT(a, b) OPTRACE_DETAIL_CAT2(a, b)
#ifdef OPTRACE_COMPILE_LEVEL
#define OPTRACE_DETAIL_COMPILE_LEVEL \
  OPTRACE_DETAIL_CAT(OPTRACE_DETAIL_LEVEL_, OPTRACE_COMPILE_LEVEL)
#else
#define OPTRACE_DETAIL_COMPILE_LEVEL 5
#endif

namespace optrace {

// Levels, least to most verbose (kOff, kError, kWarning, kInfo, kDebug,
// kTrace): the same values as the level word in shared memory. Op events
// are emitted at kTrace.
using Level = abi::LevelValue;

static_assert(OPTRACE_DETAIL_COMPILE_LEVEL + 0 >= 0 && OPTRACE_DETAIL_COMPILE_LEVEL + 0 <= 5,
              "OPTRACE_COMPILE_LEVEL must be off, error, warning, info, debug, trace or 0..5");

// Everything whose behaviour depends on OPTRACE_COMPILE_LEVEL lives in an
// inline namespace named after the level, so that translation units built
// with different ceilings link into one program without sharing (and the
// linker picking one of) differently-compiled inline functions.
#define OPTRACE_DETAIL_LEVEL_NAMESPACE \
  OPTRACE_DETAIL_CAT(compile_level_, OPTRACE_DETAIL_COMPILE_LEVEL)
inline namespace OPTRACE_DETAIL_LEVEL_NAMESPACE {

// The most verbose level compiled into this translation unit.
inline constexpr Level kCompileLevel = static_cast<Level>(OPTRACE_DETAIL_COMPILE_LEVEL);

// True when ops (trace level) are compiled in.
inline constexpr bool kOpsCompiledIn = kCompileLevel >= Level::kTrace;

}  // namespace OPTRACE_DETAIL_LEVEL_NAMESPACE

// The name of every step op (optrace::Step, NextStep, optrace_step_begin,
// optrace.step() in Python): what optraced's step detection looks for.
inline constexpr std::string_view kStepName = OPTRACE_STEP_NAME;

// The name of every keep mark (optrace::Keep, optrace_keep, optrace.keep()
// in Python): what optraced turns into a keep.
inline constexpr std::string_view kKeepName = OPTRACE_KEEP_NAME;

// What kind of device an op runs on.
enum class Target : uint8_t { kCpu = 1, kGpu = 2, kOther = 3 };

// Where an op runs: target kind, device ordinal and stream or queue.
struct Placement {
  Target target = Target::kCpu;
  uint16_t device = 0;
  uint32_t stream = 0;

  static constexpr Placement Cpu(uint16_t device = 0) { return {Target::kCpu, device, 0}; }
  static constexpr Placement Gpu(uint16_t device, uint32_t stream = 0) {
    return {Target::kGpu, device, stream};
  }
};

// Interns `text` into this process's string table and returns its id (for
// dynamic tags: intern once per distinct tag and keep the id). Never fails
// loudly: returns 1 ("<string table full>") when the table is full and 0
// for empty text. Thread-safe; takes a process-local lock (cold path).
OPTRACE_EXPORT uint32_t Intern(std::string_view text) noexcept;

// The tag of a fused op that replaces the ops tagged `parts`, in the order
// they compute: the parts joined by '+', e.g. FusedTag({"matmul_16x4096x1024_f32",
// "elementwise_gelu_65536_f32"}) (docs/dispatch-names.md). Intern the result
// once per distinct fusion, as any dynamic tag. Returns "" when there are
// fewer than two parts, a part is empty or contains '+', the tag would be
// longer than the string table keeps (abi::kMaxStringBytes), or memory
// runs out. Thread-safe; allocates (cold path).
OPTRACE_EXPORT std::string FusedTag(std::span<const std::string_view> parts) noexcept;
inline std::string FusedTag(std::initializer_list<std::string_view> parts) noexcept {
  return FusedTag(std::span<const std::string_view>(parts.begin(), parts.size()));
}

// Sets the level this process asks for (as OPTRACE_LEVEL does at start).
// Takes effect at once while no daemon is attached; an attached daemon
// combines it with its own rules within one drain cycle. Thread-safe.
OPTRACE_EXPORT void SetLevel(Level level) noexcept;

// The live level the hot path currently checks.
OPTRACE_EXPORT Level GetLevel() noexcept;

// True when ops are recorded now: the same single load and branch as the
// hot path, for runtimes that want to skip work (e.g. building a dynamic
// tag) when nobody traces.
inline namespace OPTRACE_DETAIL_LEVEL_NAMESPACE {
inline bool OpsEnabled() noexcept {
  if constexpr (kOpsCompiledIn) return detail::LevelEnabled(abi::LevelValue::kTrace);
  return false;
}
}  // namespace OPTRACE_DETAIL_LEVEL_NAMESPACE

// Events this process could not record so far: ring full, no free ring,
// no segment. For tests and runtime self-diagnostics.
struct DropCounts {
  uint64_t ring_full = 0;
  uint64_t no_ring = 0;
  uint64_t no_segment = 0;
};
OPTRACE_EXPORT DropCounts GetDropCounts() noexcept;

// The name of this process's segment ("" when none exists yet).
OPTRACE_EXPORT const char* SegmentNameOrEmpty() noexcept;

// A static description of one place in the code that emits ops: name,
// optional static tag and source location. Declare it `static` (or keep it
// in a long-lived dispatch object): it caches its interned ids. The strings
// must outlive the site (string literals do). Thread-safe.
// `location` is the source location of every op of the site. The default
// is where the site is constructed: right for a site declared at the line
// that issues its ops (OPTRACE_SCOPED_OP does that). A site built anywhere
// else (in a loop, through std::make_unique, by a factory) must be given
// the location of the code that issues its ops, e.g. a
// std::source_location defaulted at the caller of the op-issuing function
// and one site per such location (kernels/backend.h does that).
class OpSite {
 public:
  explicit OpSite(const char* name, const char* tag = nullptr,
                  std::source_location location = std::source_location::current()) noexcept
      : name_(name), tag_(tag), location_(location) {}
  OpSite(const OpSite&) = delete;
  OpSite& operator=(const OpSite&) = delete;

  const char* name() const { return name_; }

  // Interned ids; the first call interns, later calls are one relaxed load.
  uint32_t name_id() noexcept { return Cached(name_id_, kName); }
  uint32_t tag_id() noexcept { return tag_ == nullptr ? 0 : Cached(tag_id_, kTag); }
  uint32_t srcloc_id() noexcept { return Cached(srcloc_id_, kSrcloc); }

 private:
  enum Field { kName, kTag, kSrcloc };
  uint32_t Cached(std::atomic<uint32_t>& id, Field field) noexcept {
    const uint32_t cached = id.load(std::memory_order_relaxed);
    return cached != 0 ? cached : InternField(field);
  }
  OPTRACE_EXPORT uint32_t InternField(Field field) noexcept;

  const char* name_;
  const char* tag_;
  std::source_location location_;
  std::atomic<uint32_t> name_id_{0};
  std::atomic<uint32_t> tag_id_{0};
  std::atomic<uint32_t> srcloc_id_{0};
};

namespace detail {

// Sets every field of `e` but thread_id and stamp, timestamped now.
inline void FillEvent(abi::OpEvent& e, abi::EventKind kind, uint32_t name_id, uint32_t tag_id,
                      uint32_t srcloc_id, Placement placement, uint64_t op_id,
                      uint64_t parent) noexcept {
  e.ts = Now();
  e.op_id = op_id;
  e.parent_op_id = parent;
  e.arg = 0;
  e.name_id = name_id;
  e.tag_id = tag_id;
  e.srcloc_id = srcloc_id;
  e.stream = placement.stream;
  e.device_id = placement.device;
  e.kind = static_cast<uint8_t>(kind);
  e.level = static_cast<uint8_t>(abi::LevelValue::kTrace);
  e.target_kind = static_cast<uint8_t>(placement.target);
  e.flags = 0;
  e.reserved = 0;
}

// Emits one event of an op described by its site; `tag_id` 0 keeps the
// site's tag.
inline void EmitOpEvent(abi::EventKind kind, OpSite& site, uint32_t tag_id, Placement placement,
                        uint64_t op_id, uint64_t parent) noexcept {
  Emit([&](abi::OpEvent& e) {
    FillEvent(e, kind, site.name_id(), tag_id != 0 ? tag_id : site.tag_id(), site.srcloc_id(),
              placement, op_id, parent);
  });
}

}  // namespace detail

inline namespace OPTRACE_DETAIL_LEVEL_NAMESPACE {

// A synchronous op: LAUNCH when constructed, COMPLETE when destroyed, on the
// same thread. While it lives it is the parent of ops started on this
// thread. `tag_id` (from Intern) overrides the site's static tag; 0 keeps it.
// REQUIRES: `site` outlives the op; scoped ops on one thread nest (LIFO).
class ScopedOp {
 public:
  explicit ScopedOp(OpSite& site, Placement placement = {}, uint32_t tag_id = 0) noexcept
      : site_(site), placement_(placement), tag_id_(tag_id) {
    if constexpr (kOpsCompiledIn) {
      if (!detail::LevelEnabled(abi::LevelValue::kTrace)) return;
      detail::ThreadWriter& w = detail::tls_writer;
      id_ = detail::NextOpId(w);
      parent_ = w.current_op;
      w.current_op = id_;
      detail::EmitOpEvent(abi::EventKind::kLaunch, site_, tag_id_, placement_, id_, parent_);
    }
  }
  ~ScopedOp() {
    if constexpr (kOpsCompiledIn) {
      // A LAUNCH that was recorded always gets its COMPLETE, whatever the
      // level is now, so that no span is left open by a level change.
      if (id_ == 0) return;
      detail::EmitOpEvent(abi::EventKind::kComplete, site_, tag_id_, placement_, id_, parent_);
      detail::tls_writer.current_op = parent_;
    }
  }
  ScopedOp(const ScopedOp&) = delete;
  ScopedOp& operator=(const ScopedOp&) = delete;

  // The op id, or 0 when the op is not being traced.
  uint64_t id() const { return id_; }

 private:
  OpSite& site_;
  Placement placement_;
  uint32_t tag_id_;
  uint64_t id_ = 0;
  uint64_t parent_ = 0;
};

// Starts an asynchronous op (LAUNCH) whose COMPLETE may happen on another
// thread, e.g. a GPU kernel completed by a completion thread. Its parent is
// the scoped op open on this thread. It does not become a parent itself.
// Returns the op id to pass to EndOp, or 0 when the op is not traced.
inline uint64_t BeginOp(OpSite& site, Placement placement = {}, uint32_t tag_id = 0) noexcept {
  if constexpr (kOpsCompiledIn) {
    if (!detail::LevelEnabled(abi::LevelValue::kTrace)) return 0;
    detail::ThreadWriter& w = detail::tls_writer;
    const uint64_t id = detail::NextOpId(w);
    detail::EmitOpEvent(abi::EventKind::kLaunch, site, tag_id, placement, id, w.current_op);
    return id;
  }
  return 0;
}

// Completes an op started with BeginOp, from any thread. When
// `device_duration_ns` is non-zero the COMPLETE carries it as the
// device-measured duration. Does nothing for op id 0.
inline void EndOp(OpSite& site, uint64_t op_id, Placement placement = {}, uint32_t tag_id = 0,
                  uint64_t device_duration_ns = 0) noexcept {
  if constexpr (kOpsCompiledIn) {
    if (op_id == 0) return;
    detail::Emit([&](abi::OpEvent& e) {
      detail::FillEvent(e, abi::EventKind::kComplete, site.name_id(),
                        tag_id != 0 ? tag_id : site.tag_id(), site.srcloc_id(), placement, op_id,
                        0);
      if (device_duration_ns != 0) {
        e.arg = device_duration_ns;
        e.flags = abi::kFlagDeviceDuration;
      }
    });
  }
}

}  // namespace OPTRACE_DETAIL_LEVEL_NAMESPACE

namespace detail {

// The interned id of kStepName, interned by the first call of the
// process; later calls are one relaxed load. Thread-safe.
OPTRACE_EXPORT uint32_t StepNameId() noexcept;

// The interned id of `location` ("file:line") for a step. Steps are begun
// once per loop iteration, not per op: a cache of the calling thread's last
// few step locations (one compare each) stands in for a static site, and a
// location not in it costs one intern (a process-local lock). Thread-safe.
OPTRACE_EXPORT uint32_t StepSrclocId(const std::source_location& location) noexcept;

// optrace_step and optrace_step_finish with the caller's source location
// (see optrace.h).
OPTRACE_EXPORT int NextStepAt(const std::source_location& location) noexcept;
OPTRACE_EXPORT int FinishBoundaryStep() noexcept;

}  // namespace detail

inline namespace OPTRACE_DETAIL_LEVEL_NAMESPACE {

// One iteration of a training or serving loop: an op named "optrace.step"
// (kStepName; optraced numbers a session's steps from 1 by start),
// target CPU, no tag, at the source location of the code that constructs
// it. LAUNCH when constructed, COMPLETE when destroyed; while it lives it
// is the parent of the ops started on this thread, as a ScopedOp.
//
//   for (const Batch& batch : loader) {
//     optrace::Step step;                          // LAUNCH
//     Forward(batch);                              // ops nest under the step
//   }                                              // COMPLETE
//
// Compiled out with ops (kOpsCompiledIn). REQUIRES: steps and scoped ops
// on one thread nest (LIFO); optrace.h says what happens otherwise.
class Step {
 public:
  explicit Step(std::source_location location = std::source_location::current()) noexcept {
    if constexpr (kOpsCompiledIn) {
      if (!detail::LevelEnabled(abi::LevelValue::kTrace)) return;
      name_id_ = detail::StepNameId();
      srcloc_id_ = detail::StepSrclocId(location);
      detail::ThreadWriter& w = detail::tls_writer;
      id_ = detail::NextOpId(w);
      parent_ = w.current_op;
      w.current_op = id_;
      Emit(abi::EventKind::kLaunch);
    }
  }
  ~Step() {
    if constexpr (kOpsCompiledIn) {
      // As ~ScopedOp: a recorded LAUNCH always gets its COMPLETE.
      if (id_ == 0) return;
      Emit(abi::EventKind::kComplete);
      detail::tls_writer.current_op = parent_;
    }
  }
  Step(const Step&) = delete;
  Step& operator=(const Step&) = delete;

  // The step's op id, or 0 when it is not being traced.
  uint64_t id() const { return id_; }

 private:
  void Emit(abi::EventKind kind) noexcept {
    detail::Emit([&](abi::OpEvent& e) {
      detail::FillEvent(e, kind, name_id_, 0, srcloc_id_, Placement::Cpu(), id_, parent_);
    });
  }

  uint32_t name_id_ = 0;
  uint32_t srcloc_id_ = 0;
  uint64_t id_ = 0;
  uint64_t parent_ = 0;
};

// The boundary between two iterations, for a loop with no scope around its
// body (optrace_step): ends this thread's open boundary step, if any, and
// begins the next one at the caller's source location; it stays open until
// this thread's next NextStep or FinishStep. Call it at the top of each
// iteration, and FinishStep after the last. The boundary step is per
// thread and independent of Step objects. Compiled out with ops.
inline void NextStep(std::source_location location = std::source_location::current()) noexcept {
  if constexpr (kOpsCompiledIn) detail::NextStepAt(location);
}

// Ends this thread's open boundary step, if any, without beginning another
// (optrace_step_finish). Compiled out with ops.
inline void FinishStep() noexcept {
  if constexpr (kOpsCompiledIn) detail::FinishBoundaryStep();
}

}  // namespace OPTRACE_DETAIL_LEVEL_NAMESPACE

namespace detail {

// Emits a mark or counter at `level` if the live level lets it through.
// (The compile-time ceiling is applied by the callers.)
inline void EmitInstant(abi::EventKind kind, Level level, uint32_t name_id, uint32_t tag_id,
                        uint64_t arg) noexcept {
  if (level == Level::kOff) return;
  const auto lv = static_cast<abi::LevelValue>(level);
  if (!LevelEnabled(lv)) return;
  const uint64_t parent = tls_writer.current_op;
  Emit([&](abi::OpEvent& e) {
    FillEvent(e, kind, name_id, tag_id, 0, {}, 0, parent);
    e.level = static_cast<uint8_t>(lv);
    e.arg = arg;
  });
}

}  // namespace detail

inline namespace OPTRACE_DETAIL_LEVEL_NAMESPACE {

// Records an instant event at `level` (e.g. "step 12 done").
inline void Mark(OpSite& site, Level level = Level::kInfo, uint32_t tag_id = 0) noexcept {
  if (level > kCompileLevel) return;
  detail::EmitInstant(abi::EventKind::kMark, level, site.name_id(),
                      tag_id != 0 ? tag_id : site.tag_id(), 0);
}

// Records the value of a counter (e.g. bytes in a memory pool) at `level`.
inline void Counter(OpSite& site, int64_t value, Level level = Level::kDebug) noexcept {
  if (level > kCompileLevel) return;
  detail::EmitInstant(abi::EventKind::kCounter, level, site.name_id(), 0,
                      static_cast<uint64_t>(value));
}

}  // namespace OPTRACE_DETAIL_LEVEL_NAMESPACE

namespace detail {

// optrace_keep with a reason of any bytes (see optrace.h): cut to
// OPTRACE_KEEP_REASON_MAX bytes at a UTF-8 boundary, "" is "keep".
OPTRACE_EXPORT int KeepReason(std::string_view reason) noexcept;

}  // namespace detail

inline namespace OPTRACE_DETAIL_LEVEL_NAMESPACE {

// Keeps the trace around this moment (optrace_keep): keep_before before it
// to keep_after after it, reason "runtime: " + `reason` ("keep" when
// empty; cut to OPTRACE_KEEP_REASON_MAX bytes at a UTF-8 boundary). A mark
// at kError named kKeepName: recorded unless the live level is off, and
// compiled out only with OPTRACE_COMPILE_LEVEL=off (a keep is worth having
// where ops are compiled out, for the spans of other libraries). Interns
// the reason (a process-local lock, cold path). Thread-safe.
inline void Keep(std::string_view reason = {}) noexcept {
  if constexpr (Level::kError <= kCompileLevel) detail::KeepReason(reason);
}

}  // namespace OPTRACE_DETAIL_LEVEL_NAMESPACE

// Registers a listing of the runtime's own under `name` (an IR dump after
// a compiler pass, say): op sites point into it with the location
// "name:line". As optrace_register_listing: 0, -EINVAL or -ENOSPC.
OPTRACE_EXPORT int RegisterListing(std::string_view name, std::string_view text) noexcept;

}  // namespace optrace

// Declares a scoped op `var` at this line with a static site named `name`
// (and optionally a static tag): OPTRACE_SCOPED_OP(op, "softmax");
#define OPTRACE_SCOPED_OP(var, ...)                                      \
  static ::optrace::OpSite OPTRACE_DETAIL_CAT(var, _site_){__VA_ARGS__}; \
  ::optrace::ScopedOp var(OPTRACE_DETAIL_CAT(var, _site_))

#endif  // OPTRACE_OPTRACE_HPP_
