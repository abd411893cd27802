// Names of optrace shared-memory objects, shared by producers and consumers.
#ifndef OPTRACE_COMMON_SEGMENT_NAME_H_
#define OPTRACE_COMMON_SEGMENT_NAME_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace optrace {

inline constexpr std::string_view kDefaultNamespace = "optrace";
inline constexpr size_t kMaxNamespaceBytes = 64;

// True when `ns` is 1..64 characters of [A-Za-z0-9_-]: safe in a file name
// and unambiguous next to the '.' separators of a segment name.
bool IsValidNamespace(std::string_view ns);

// The identity encoded in a producer segment's name:
// "<namespace>.<uid>.<pid>.<nonce as 16 lowercase hex digits>".
struct SegmentName {
  std::string ns;
  uint32_t uid = 0;
  uint32_t pid = 0;
  uint64_t nonce = 0;

  // The shared-memory object name, without the leading '/'.
  std::string Format() const;

  // Parses a name as found in the shm folder (no leading '/'). Returns
  // nullopt for anything that is not exactly a well-formed segment name,
  // including control segments and foreign files.
  static std::optional<SegmentName> Parse(std::string_view name);
};

// The name of the daemon control segment that daemon `uid` publishes for
// namespace `ns`: "<namespace>.control.<uid>".
std::string ControlSegmentName(std::string_view ns, uint32_t uid);

// The folder where POSIX shared-memory objects appear as files.
inline constexpr std::string_view kShmFolder = "/dev/shm";

}  // namespace optrace

#endif  // OPTRACE_COMMON_SEGMENT_NAME_H_
