// The Python line that called into PyTorch on this thread (`model.py:37`),
// read from the interpreter's own frame list without the GIL (PyTorch
// releases it around every op) and without creating frame objects.
#ifndef OPTRACE_TORCH_PYTHON_CALLER_H_
#define OPTRACE_TORCH_PYTHON_CALLER_H_

#include <cstdint>
#include <string>

namespace optrace::torch_ops {

// Frames of files whose path starts with `prefix` (PyTorch's own package
// folder) are skipped: the line reported is the innermost one outside it.
// Call once before the first CallerLocationId; "" skips nothing.
void SetInternalPathPrefix(std::string prefix);

// The optrace source-location id ("file:line") of the innermost Python
// frame of this thread outside the internal prefix, or 0: no Python thread
// state on this thread (autograd's engine threads), not CPython 3.11, no
// such frame, or a non-ASCII path. REQUIRES: called on a thread that is
// inside a call from Python (or none); the thread's frames do not change
// during the call, which is what makes reading them without the GIL sound.
// Cached per (code object, instruction) in a per-thread table.
uint32_t CallerLocationId();

}  // namespace optrace::torch_ops

#endif  // OPTRACE_TORCH_PYTHON_CALLER_H_
