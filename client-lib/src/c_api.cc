// The C API (optrace/optrace.h), on top of the same fast path as C++.
#include <cerrno>
#include <string>

#include "optrace/optrace.h"
#include "optrace/optrace.hpp"
#include "runtime.h"

namespace {

using optrace::detail::tls_writer;

// Scoped ops open on this thread, innermost last, so that the end of a
// scoped op restores its parent. Deeper nesting than this still records
// the ops; they just do not become parents.
struct ScopeStack {
  static constexpr int kDepth = 64;
  uint64_t id[kDepth];
  uint64_t parent[kDepth];
  int depth;
};
__thread ScopeStack tls_scopes __attribute__((tls_model("initial-exec")));

bool ValidDesc(const optrace_op_desc* d) {
  return d != nullptr && d->target >= OPTRACE_TARGET_CPU && d->target <= OPTRACE_TARGET_OTHER;
}

optrace::Placement PlacementOf(const optrace_op_desc* d) {
  return {static_cast<optrace::Target>(d->target), d->device, d->stream};
}

int InternStatus(uint32_t id) { return id == optrace::abi::kStringTableFull ? -ENOSPC : 0; }

}  // namespace

extern "C" {

int optrace_intern(const char* text, size_t len, uint32_t* id) {
  if (text == nullptr || id == nullptr || len == 0) return -EINVAL;
  *id = optrace::Intern(std::string_view(text, len));
  return InternStatus(*id);
}

int optrace_intern_location(const char* file, uint32_t line, uint32_t* id) {
  if (file == nullptr || id == nullptr) return -EINVAL;
  try {
    *id = optrace::client::Runtime::Get().InternLocation(file, line);
  } catch (...) {
    *id = optrace::abi::kStringTableFull;
  }
  return InternStatus(*id);
}

int optrace_set_level(int level) {
  if (level < OPTRACE_LEVEL_OFF || level > OPTRACE_LEVEL_TRACE) return -EINVAL;
  optrace::SetLevel(static_cast<optrace::Level>(level));
  return 0;
}

int optrace_get_level(void) { return static_cast<int>(optrace::GetLevel()); }

int optrace_ops_enabled(void) {
  return optrace::detail::LevelEnabled(optrace::abi::LevelValue::kTrace) ? 1 : 0;
}

uint64_t optrace_op_begin(const optrace_op_desc* desc, uint32_t flags) {
  if (!ValidDesc(desc)) return 0;
  if (!optrace::detail::LevelEnabled(optrace::abi::LevelValue::kTrace)) return 0;
  optrace::detail::ThreadWriter& w = tls_writer;
  const uint64_t id = optrace::detail::NextOpId(w);
  const uint64_t parent = w.current_op;
  optrace::detail::Emit([&](optrace::abi::OpEvent& e) {
    optrace::detail::FillEvent(e, optrace::abi::EventKind::kLaunch, desc->name_id, desc->tag_id,
                               desc->srcloc_id, PlacementOf(desc), id, parent);
  });
  ScopeStack& s = tls_scopes;
  if ((flags & OPTRACE_OP_SCOPED) != 0 && s.depth < ScopeStack::kDepth) {
    s.id[s.depth] = id;
    s.parent[s.depth] = parent;
    ++s.depth;
    w.current_op = id;
  }
  return id;
}

int optrace_op_end(const optrace_op_desc* desc, uint64_t op_id, uint64_t device_duration_ns) {
  if (!ValidDesc(desc)) return -EINVAL;
  if (op_id == 0) return 0;
  optrace::detail::Emit([&](optrace::abi::OpEvent& e) {
    optrace::detail::FillEvent(e, optrace::abi::EventKind::kComplete, desc->name_id, desc->tag_id,
                               desc->srcloc_id, PlacementOf(desc), op_id, 0);
    if (device_duration_ns != 0) {
      e.arg = device_duration_ns;
      e.flags = optrace::abi::kFlagDeviceDuration;
    }
  });
  ScopeStack& s = tls_scopes;
  for (int i = s.depth - 1; i >= 0; --i) {
    if (s.id[i] != op_id) continue;
    tls_writer.current_op = s.parent[i];
    s.depth = i;
    break;
  }
  return 0;
}

int optrace_mark(int level, uint32_t name_id, uint32_t tag_id) {
  if (level <= OPTRACE_LEVEL_OFF || level > OPTRACE_LEVEL_TRACE) return -EINVAL;
  optrace::detail::EmitInstant(optrace::abi::EventKind::kMark, static_cast<optrace::Level>(level),
                               name_id, tag_id, 0);
  return 0;
}

int optrace_counter(int level, uint32_t name_id, int64_t value) {
  if (level <= OPTRACE_LEVEL_OFF || level > OPTRACE_LEVEL_TRACE) return -EINVAL;
  optrace::detail::EmitInstant(optrace::abi::EventKind::kCounter,
                               static_cast<optrace::Level>(level), name_id, 0,
                               static_cast<uint64_t>(value));
  return 0;
}

int optrace_count_names_capped(uint64_t count) {
  return optrace::client::Runtime::Get().CountNamesCapped(count) ? 0 : -ENODEV;
}

}  // extern "C"
