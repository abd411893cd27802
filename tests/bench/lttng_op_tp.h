// LTTng-UST tracepoint provider for bench_side_by_side: the LAUNCH and
// COMPLETE of an op with the fields the other rows carry (name, op id,
// target, device). Compiled into the program by lttng_op_tp.c; the program
// fires the tracepoints with lttng_ust_tracepoint(optrace_bench, launch, ...).
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER optrace_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "lttng_op_tp.h"

#if !defined(OPTRACE_TESTS_BENCH_LTTNG_OP_TP_H_) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define OPTRACE_TESTS_BENCH_LTTNG_OP_TP_H_

#include <lttng/tracepoint.h>
#include <stdint.h>

// The fields list is a sequence of macros, not arguments: left as written.
// clang-format off
LTTNG_UST_TRACEPOINT_EVENT_CLASS(
    optrace_bench, op_class,
    LTTNG_UST_TP_ARGS(const char*, name, uint64_t, id, const char*, target, int32_t, device),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_string(name, name)
                        lttng_ust_field_integer(uint64_t, id, id)
                        lttng_ust_field_string(target, target)
                        lttng_ust_field_integer(int32_t, device, device)))

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(
    optrace_bench, op_class, optrace_bench, launch,
    LTTNG_UST_TP_ARGS(const char*, name, uint64_t, id, const char*, target, int32_t, device))

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(
    optrace_bench, op_class, optrace_bench, complete,
    LTTNG_UST_TP_ARGS(const char*, name, uint64_t, id, const char*, target, int32_t, device))
// clang-format on

#endif  // OPTRACE_TESTS_BENCH_LTTNG_OP_TP_H_

#include <lttng/tracepoint-event.h>
