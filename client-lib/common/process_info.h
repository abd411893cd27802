// Facts about a process read from /proc, shared by producers (about
// themselves) and the daemon (about the processes it serves).
#ifndef OPTRACE_COMMON_PROCESS_INFO_H_
#define OPTRACE_COMMON_PROCESS_INFO_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

namespace optrace {

// Field 22 of /proc/<pid>/stat (start time in clock ticks since boot): with
// the pid it identifies a process across pid reuse. nullopt when the process
// does not exist or the file cannot be parsed.
std::optional<uint64_t> ProcessStartTicks(pid_t pid);

// The real uid of process `pid` (the "Uid:" line of /proc/<pid>/status),
// or nullopt when the process does not exist or the file cannot be parsed.
std::optional<uint32_t> ProcessRealUid(pid_t pid);

// The target of /proc/<pid>/exe, or "" when unreadable.
std::string ProcessExecutable(pid_t pid);

// /proc/<pid>/cmdline with NUL separators kept, at most `max_bytes` bytes.
std::string ProcessCommandLine(pid_t pid, size_t max_bytes);

// The calling thread's OS thread id.
uint32_t CurrentThreadId();

}  // namespace optrace

#endif  // OPTRACE_COMMON_PROCESS_INFO_H_
