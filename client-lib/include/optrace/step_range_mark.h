/* The mark that makes a range a step, for instrumentation layers. */
#ifndef OPTRACE_STEP_RANGE_MARK_H_
#define OPTRACE_STEP_RANGE_MARK_H_

/* A counter sample of this name recorded right after a scoped op begins
 * (on its thread, so that the op is the sample's parent) makes that op a
 * step, numbered by the sample's value: how an instrumentation layer marks
 * the ranges that are its program's steps (liboptrace_nvtx.so, for the
 * NVTX ranges `optrace run --nvtx --step-range NAME` names). optraced uses
 * them when the session has no OPTRACE_STEP_NAME steps (optrace.h). */
#define OPTRACE_STEP_RANGE_MARK_NAME "optrace.step_range"

#endif /* OPTRACE_STEP_RANGE_MARK_H_ */
