// Functions built with -DOPTRACE_COMPILE_LEVEL=info (see CMakeLists.txt).
#ifndef OPTRACE_TESTS_UNIT_CLIENT_COMPILED_OUT_OPS_H_
#define OPTRACE_TESTS_UNIT_CLIENT_COMPILED_OUT_OPS_H_

#include <cstdint>

namespace optrace::testing {

// optrace::kOpsCompiledIn as seen in that translation unit.
bool CompiledOutOpsEnabled();

// Runs a scoped op (compiled out) and an info mark (kept); returns the
// op's id, which is 0 when compiled out.
uint64_t RunCompiledOutOpAndMark();

// Runs a Step and two NextStep boundaries then FinishStep (all compiled
// out); returns the Step's id, which is 0 when compiled out.
uint64_t RunCompiledOutSteps();

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_UNIT_CLIENT_COMPILED_OUT_OPS_H_
