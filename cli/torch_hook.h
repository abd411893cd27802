// Where the PyTorch hook is, for `optrace run --torch`: the folder holding
// optrace's sitecustomize.py (python/optrace/_torch_hook), which the command
// gets on PYTHONPATH.
#ifndef OPTRACE_CLI_TORCH_HOOK_H_
#define OPTRACE_CLI_TORCH_HOOK_H_

#include <string>
#include <vector>

namespace optrace::cli {

// The places looked at, in order: $OPTRACE_TORCH_HOOK (alone, when set),
// the installed Python package next to this binary
// (<bindir>/../<python dir>/optrace/_torch_hook), and the build tree this
// binary was built in.
std::vector<std::string> TorchHookCandidates();

// The first candidate folder holding sitecustomize.py, or "".
std::string FindTorchHook();

// `path` put in front of the PYTHONPATH value `current` (null or "" when
// unset).
std::string PythonPathWith(const std::string& path, const char* current);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_TORCH_HOOK_H_
