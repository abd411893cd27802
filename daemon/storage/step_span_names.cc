#include "storage/step_span_names.h"

namespace optrace::daemon {

Result<StepSpanNames> StepSpanNames::Load(SqliteConnection& db) {
  Result<KnownStringIds> ids = KnownStringIds::Load(
      db, {std::string(kStepSpanExplicitName), std::string(kStepSpanProfilerName)});
  if (!ids.ok()) return ids.status();
  return StepSpanNames(std::move(ids).value());
}

}  // namespace optrace::daemon
