/* liboptrace C API: the same power as the C++ API for runtimes written in
 * other languages. Intern each string once, then begin and end ops by the
 * interned ids.
 *
 *   uint32_t name, loc;
 *   optrace_intern("matmul", 6, &name);
 *   optrace_intern_location(__FILE__, __LINE__, &loc);
 *   optrace_op_desc d = {name, 0, loc, OPTRACE_TARGET_GPU, 0, stream};
 *   uint64_t id = optrace_op_begin(&d, 0);
 *   ...
 *   optrace_op_end(&d, id, device_ns);
 *
 * No function here blocks, aborts or raises: failures are negative errno
 * values, and events that cannot be recorded are dropped and counted.
 * All functions are thread-safe. */
#ifndef OPTRACE_OPTRACE_H_
#define OPTRACE_OPTRACE_H_

#include <stddef.h>
#include <stdint.h>

#include "optrace/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Levels, least to most verbose. Op events are emitted at TRACE. */
typedef enum optrace_level {
  OPTRACE_LEVEL_OFF = 0,
  OPTRACE_LEVEL_ERROR = 1,
  OPTRACE_LEVEL_WARNING = 2,
  OPTRACE_LEVEL_INFO = 3,
  OPTRACE_LEVEL_DEBUG = 4,
  OPTRACE_LEVEL_TRACE = 5
} optrace_level;

typedef enum optrace_target {
  OPTRACE_TARGET_CPU = 1,
  OPTRACE_TARGET_GPU = 2,
  OPTRACE_TARGET_OTHER = 3
} optrace_target;

/* What an op is and where it runs; ids come from optrace_intern*. */
typedef struct optrace_op_desc {
  uint32_t name_id;   /* required */
  uint32_t tag_id;    /* 0 = none */
  uint32_t srcloc_id; /* 0 = none */
  uint8_t target;     /* optrace_target */
  uint16_t device;    /* device ordinal */
  uint32_t stream;    /* stream or queue, 0 = default */
} optrace_op_desc;

/* optrace_op_begin flag: the op is scoped to the calling thread. It becomes
 * the parent of ops begun on this thread until it ends, and it must end on
 * this thread in LIFO order. Without it the op may end on any thread. */
#define OPTRACE_OP_SCOPED 1u

/* Interns `len` bytes of `text` and stores its id in `*id`.
 * Returns 0, -EINVAL (null pointer or len == 0), or -ENOSPC (the string
 * table is full; *id is then 1, "<string table full>"). */
OPTRACE_EXPORT int optrace_intern(const char* text, size_t len, uint32_t* id);

/* Interns the source location "file:line" and stores its id in `*id`.
 * Same return values as optrace_intern. */
OPTRACE_EXPORT int optrace_intern_location(const char* file, uint32_t line, uint32_t* id);

/* Writes the tag of a fused op that replaces the `count` ops tagged
 * `parts` (NUL-terminated), in the order they compute: the parts joined
 * by '+', e.g. "matmul_16x4096x1024_f32+elementwise_gelu_65536_f32"
 * (docs/dispatch-names.md), NUL-terminated, into `out` of `out_size`
 * bytes. Intern it once per distinct fusion with optrace_intern.
 * Returns its length (without the NUL), -EINVAL (a null pointer, fewer
 * than two parts, a part empty or containing '+'), -E2BIG (longer than
 * 4096 bytes, the longest string the string table keeps) or -ENOSPC
 * (out_size is not more than the length; `out` is left as it was). */
OPTRACE_EXPORT int optrace_fused_tag(const char* const* parts, size_t count, char* out,
                                     size_t out_size);

/* Sets the level this process asks for. Returns 0 or -EINVAL. */
OPTRACE_EXPORT int optrace_set_level(int level);

/* The live level the hot path checks now (optrace_level). */
OPTRACE_EXPORT int optrace_get_level(void);

/* Non-zero when ops (trace level) are recorded now. */
OPTRACE_EXPORT int optrace_ops_enabled(void);

/* Emits LAUNCH and returns the new op id, or 0 when ops are filtered out
 * by the live level or `desc` is invalid (null, unknown target). `flags`:
 * 0 or OPTRACE_OP_SCOPED. */
OPTRACE_EXPORT uint64_t optrace_op_begin(const optrace_op_desc* desc, uint32_t flags);

/* Emits COMPLETE for `op_id` (from optrace_op_begin; 0 is ignored). A
 * non-zero `device_duration_ns` is recorded as the device-measured
 * duration. Returns 0, or -EINVAL for a null/invalid desc. */
OPTRACE_EXPORT int optrace_op_end(const optrace_op_desc* desc, uint64_t op_id,
                                  uint64_t device_duration_ns);

/* Steps: the iterations of a training or serving loop. A step is an
 * ordinary op named OPTRACE_STEP_NAME, target CPU, no tag, begun with
 * OPTRACE_OP_SCOPED: while it is open it is the parent of the ops begun on
 * its thread (within 64 scoped levels, as any scoped op). optraced numbers a
 * session's steps from 1 by start (`optrace steps`). The name is interned
 * once per process. C steps carry no source location.
 *
 * REQUIRES: a step is begun and ended on the same thread, with no other
 * scoped op of that thread left open inside it (LIFO, as scoped ops).
 * liboptrace does not check the order. Every span is still recorded, but
 * ending a step (or any scoped op) out of order makes the parent it had
 * when it began current again: C scoped ops begun inside it and still open
 * stop being parents (their end is recorded and restores nothing), while a
 * C++ ScopedOp (or optrace::Step) still open inside it makes its own
 * parent (the ended step, or an op inside it) current again when it is
 * destroyed. Either way the ops begun on that thread until its scopes have
 * unwound get a wrong parent.
 * A step still open when its process ends is stored as incomplete. */
#define OPTRACE_STEP_NAME "optrace.step"

/* Begins a step scoped to the calling thread (LAUNCH) and returns its op
 * id, or 0 when ops are filtered out by the live level (nothing recorded).
 * When the string table was full before the first step, the step is
 * recorded named "<string table full>" (optrace_step says so). */
OPTRACE_EXPORT uint64_t optrace_step_begin(void);

/* Ends the step `step_id` from optrace_step_begin (COMPLETE; 0 is
 * ignored), whatever the level is now. Returns 0. */
OPTRACE_EXPORT int optrace_step_end(uint64_t step_id);

/* The boundary between two iterations, for loops that have no scope
 * around their body: ends the calling thread's boundary step, if one is
 * open, and begins the next one (as optrace_step_begin), which stays open
 * until this thread's next optrace_step or optrace_step_finish. Call it at
 * the top of each iteration. The open boundary step is per thread
 * (thread-local; optrace::NextStep shares it) and independent of steps
 * from optrace_step_begin and of Python's optrace.step(), which keeps its
 * own. Returns 0, or
 * -ENOSPC when the step name could not be interned (the string table was
 * full before the first step; the step is recorded as "<string table
 * full>"). */
OPTRACE_EXPORT int optrace_step(void);

/* Ends the calling thread's boundary step, if one is open, without
 * beginning another: call it after the loop's last iteration. Returns 0. */
OPTRACE_EXPORT int optrace_step_finish(void);

/* Keeps: asks optraced to keep the trace around this moment, so that the
 * session's rolling window never trims it: from `keep_before` (30 s by
 * default) before the call to `keep_after` (10 s) after it, listed by
 * `optrace keeps SESSION` with the reason "runtime: REASON". Call it when
 * something goes wrong (an OOM, a NaN, a timeout). A keep is a mark named
 * OPTRACE_KEEP_NAME, tagged with the reason, recorded at ERROR level: it is
 * recorded whenever the live level is not off, and is dropped and counted
 * as any event when its ring is full. The daemon records the keep once the
 * mark is stored; a session without stored spans has nothing to keep.
 * The reason is interned (once per distinct text: the string table is
 * append-only, so prefer a fixed set of reasons over ones that carry a
 * number). */
#define OPTRACE_KEEP_NAME "optrace.keep"

/* The longest reason optrace_keep records, in bytes; a longer one is cut
 * to at most this many at a UTF-8 character boundary. */
#define OPTRACE_KEEP_REASON_MAX 200

/* Records a keep (see OPTRACE_KEEP_NAME) with the NUL-terminated `reason`
 * (NULL or "" is "keep"; longer than OPTRACE_KEEP_REASON_MAX bytes is cut,
 * and no more than that is read). Takes the string table's process-local
 * lock (cold path; not async-signal-safe). Returns 0 (also when the level
 * is off: nothing recorded), or -ENOSPC when the string table was full: a
 * reason that could not be interned is recorded as "<string table full>",
 * and when OPTRACE_KEEP_NAME itself could not be (before this process's
 * first keep), the mark is no keep. */
OPTRACE_EXPORT int optrace_keep(const char* reason);

/* Source listings (docs/abi.md "Listings"): the first time a location is
 * interned (optrace_intern_location, or the C++ and Python op sites),
 * liboptrace reads the lines around it from the file, on a thread of its
 * own and with this process's rights, and ships them with the session, so
 * that `optrace source` shows the code as it was when it ran. A file it
 * cannot read is counted as refused. OPTRACE_LISTINGS=0 turns this off;
 * OPTRACE_LISTING_CONTEXT (default 10) sets the lines kept on each side.
 *
 * Registers a listing of the runtime's own, such as an IR dump taken after
 * a compiler pass: `len` bytes of `text`, '\n'-separated lines, under the
 * NUL-terminated `name`. Op sites then point into it with the location
 * "name:line" (optrace_intern_location(name, line, &id)). The text is
 * copied (a process-local lock, cold path). Returns 0, -EINVAL (a null
 * pointer, an empty name, or listings are off), or -ENOSPC (the listing
 * area is full, or the string table: counted as a dropped listing). */
OPTRACE_EXPORT int optrace_register_listing(const char* name, const char* text, size_t len);

/* Records an instant event at `level`. Returns 0 or -EINVAL. */
OPTRACE_EXPORT int optrace_mark(int level, uint32_t name_id, uint32_t tag_id);

/* Records a counter value at `level`. Returns 0 or -EINVAL. */
OPTRACE_EXPORT int optrace_counter(int level, uint32_t name_id, int64_t value);

/* Counts `count` names or tags that an instrumentation layer replaced by a
 * generic one (e.g. "<too many names>") because its own cap on distinct
 * names was reached: adds `count` to this process's segment counter
 * `names_capped`, which `optrace status` shows per producer. The op itself
 * is still recorded by the caller; this counts only what its name lost.
 * One relaxed atomic add: never blocks, takes no lock, allocates nothing,
 * and never starts tracing, so it is safe in a signal handler once the
 * process has emitted its first event. Returns 0, or -ENODEV (nothing
 * counted) when this process has no segment yet or could not create one. */
OPTRACE_EXPORT int optrace_count_names_capped(uint64_t count);

#ifdef __cplusplus
}
#endif

#endif /* OPTRACE_OPTRACE_H_ */
