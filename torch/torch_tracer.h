// liboptrace_torch's entry points, called from Python (optrace.torch) with
// ctypes: a global at::RecordFunction callback that records every aten op,
// autograd function and user scope (record_function, the optimizers'
// steps, ProfilerStep#N) as an optrace op (docs/pytorch.md).
#ifndef OPTRACE_TORCH_TORCH_TRACER_H_
#define OPTRACE_TORCH_TORCH_TRACER_H_

#include <stdint.h>

#include "optrace/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the callback (FUNCTION, BACKWARD_FUNCTION and USER_SCOPE
 * scopes, with inputs) and starts the thread that turns it off while this
 * process's live level is below trace and back on within 10 ms of it
 * rising.
 * Frames of files under `internal_prefix` (PyTorch's package folder; NULL
 * or "" for none) are skipped when finding the calling Python line.
 * Idempotent: later calls return 1 and change nothing. Returns 0 when it
 * registered, -1 when libtorch refused (nothing is traced then).
 * Thread-safe; never throws. */
OPTRACE_EXPORT int optrace_torch_enable(const char* internal_prefix);

/* What the callback could not record faithfully so far, by cause. */
typedef struct optrace_torch_losses {
  uint64_t callback_errors; /* libtorch threw inside the callback: op not recorded */
  uint64_t too_deep;        /* ops nested deeper than 128 on a thread: not recorded */
  uint64_t names_over_cap;  /* op and scope names beyond 2048 (a numbered name
                             * counts once, as its stem): "<too many names>" */
  uint64_t tags_over_cap;   /* distinct tags beyond 4096: tagged "<too many names>" */
} optrace_torch_losses;

/* Copies the counts into `*out` (non-null). Thread-safe. */
OPTRACE_EXPORT void optrace_torch_get_losses(optrace_torch_losses* out);

/* Non-zero while the callback is registered and enabled. */
OPTRACE_EXPORT int optrace_torch_callback_enabled(void);

#ifdef __cplusplus
}
#endif

#endif  // OPTRACE_TORCH_TORCH_TRACER_H_
