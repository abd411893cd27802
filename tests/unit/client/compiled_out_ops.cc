#include "compiled_out_ops.h"

#include "optrace/optrace.hpp"

namespace optrace::testing {

bool CompiledOutOpsEnabled() { return kOpsCompiledIn; }

uint64_t RunCompiledOutOpAndMark() {
  static OpSite mark_site("info_mark");
  Mark(mark_site, Level::kInfo);
  OPTRACE_SCOPED_OP(op, "compiled_out");
  return op.id();
}

uint64_t RunCompiledOutSteps() {
  Step step;
  NextStep();
  NextStep();
  FinishStep();
  return step.id();
}

}  // namespace optrace::testing
