// Runtime keeps (optrace.h: optrace_keep; optrace.hpp: the out-of-line part
// of optrace::Keep). A keep is a mark named kKeepName at kError whose tag is
// the reason: optraced turns it into a keep (daemon/storage/runtime_keep.h),
// so the segment format does not change.
#include <atomic>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "optrace/optrace.h"
#include "optrace/optrace.hpp"

namespace optrace {
namespace {

constexpr std::string_view kDefaultReason = "keep";
// A UTF-8 character is at most this many bytes.
constexpr size_t kMaxUtf8Bytes = 4;

// 0 until the first keep interns the name. Relaxed: the id is only a
// value; the string it names was published with release before Intern
// returned (as OpSite's ids).
std::atomic<uint32_t> g_keep_name_id{0};

uint32_t KeepNameId() noexcept {
  const uint32_t cached = g_keep_name_id.load(std::memory_order_relaxed);
  if (cached != 0) return cached;
  // Two threads may both intern it: they get the same id.
  const uint32_t id = Intern(kKeepName);
  g_keep_name_id.store(id, std::memory_order_relaxed);
  return id;
}

// `reason` cut to at most OPTRACE_KEEP_REASON_MAX bytes: when the cut
// falls inside a character (the first byte left out continues one,
// 10xxxxxx), before that character. Bytes that are not UTF-8 are cut
// after at most kMaxUtf8Bytes - 1 such steps back.
std::string_view CutReason(std::string_view reason) {
  if (reason.size() <= OPTRACE_KEEP_REASON_MAX) return reason;
  size_t size = OPTRACE_KEEP_REASON_MAX;
  const auto continues = [&](size_t i) {
    return (static_cast<unsigned char>(reason[i]) & 0xC0) == 0x80;
  };
  while (size > OPTRACE_KEEP_REASON_MAX - (kMaxUtf8Bytes - 1) && continues(size)) --size;
  return reason.substr(0, size);
}

}  // namespace

namespace detail {

int KeepReason(std::string_view reason) noexcept {
  // Nothing is recorded at off: skip interning too (a lock, table space).
  if (!LevelEnabled(abi::LevelValue::kError)) return 0;
  const uint32_t name_id = KeepNameId();
  const uint32_t tag_id = Intern(reason.empty() ? kDefaultReason : CutReason(reason));
  EmitInstant(abi::EventKind::kMark, Level::kError, name_id, tag_id, 0);
  return name_id == abi::kStringTableFull || tag_id == abi::kStringTableFull ? -ENOSPC : 0;
}

}  // namespace detail
}  // namespace optrace

extern "C" {

int optrace_keep(const char* reason) {
  // Reads at most one byte past the longest reason kept: enough to know
  // that it is cut, and where.
  const size_t length = reason == nullptr ? 0 : strnlen(reason, OPTRACE_KEEP_REASON_MAX + 1);
  return optrace::detail::KeepReason(std::string_view(reason == nullptr ? "" : reason, length));
}

}  // extern "C"
