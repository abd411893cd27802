// What a long-lived thread of the daemon says about itself to the system:
// its name (what `top -H`, `ps -L` and /proc show) and how it ranks for a
// CPU against the daemon's other threads.
#ifndef OPTRACE_COMMON_THIS_THREAD_H_
#define OPTRACE_COMMON_THIS_THREAD_H_

namespace optrace {

// Names the calling thread `name` (cut to the 15 bytes Linux keeps).
// Best effort: a name is only shown, nothing depends on it.
void NameThisThread(const char* name);

// Lowers the calling thread's scheduling priority by `steps` nice levels
// (at most to 19), leaving the process's other threads as they are: when
// it and a thread of normal priority both want a core, the other goes
// first. Needs no privilege. Returns false (priority unchanged) when the
// system refuses.
bool LowerThisThreadPriority(int steps);

}  // namespace optrace

#endif  // OPTRACE_COMMON_THIS_THREAD_H_
