// What a long-lived thread of the daemon says about itself to the system:
// its name (what `top -H`, `ps -L` and /proc show).
#ifndef OPTRACE_COMMON_THIS_THREAD_H_
#define OPTRACE_COMMON_THIS_THREAD_H_

namespace optrace {

// Names the calling thread `name` (cut to the 15 bytes Linux keeps).
// Best effort: a name is only shown, nothing depends on it.
void NameThisThread(const char* name);

}  // namespace optrace

#endif  // OPTRACE_COMMON_THIS_THREAD_H_
