// Where the NVTX injection library is, for `optrace run --nvtx`.
#ifndef OPTRACE_CLI_NVTX_LIBRARY_H_
#define OPTRACE_CLI_NVTX_LIBRARY_H_

#include <string>
#include <vector>

namespace optrace::cli {

// The places looked at, in order: $OPTRACE_NVTX_LIBRARY (alone, when set), the installed
// layout next to this binary (<bindir>/../<libdir>/optrace/), and the build
// tree this binary was built in.
std::vector<std::string> NvtxLibraryCandidates();

// The first candidate that exists, or "" when none does (NVTX ignores a
// wrong path silently, so the caller must refuse to go on). A set
// $OPTRACE_NVTX_LIBRARY is the only candidate: it is never second-guessed.
std::string FindNvtxLibrary();

// The first of `paths` that exists and is readable, made absolute; "" when
// none is.
std::string FirstReadable(const std::vector<std::string>& paths);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_NVTX_LIBRARY_H_
