// The LTTng-UST probes of lttng_op_tp.h, built into bench_side_by_side
// (statically linked provider: the tracepoints register when the program
// starts).
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "lttng_op_tp.h"
