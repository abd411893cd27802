// The slow-step trigger of keeps: a step slower than the steps before it
// keeps its own time, reason "slow step N", so that a job traced for a
// week keeps the detail of its bad steps and the window trims the rest.
// Steps are judged as they commit, by the rules `optrace steps` uses by
// default (model/step_judge.h): an optrace.step span (explicit steps), or,
// in a session without those, a PyTorch ProfilerStep# range.
#ifndef OPTRACE_DAEMON_STORAGE_SLOW_STEP_KEEP_H_
#define OPTRACE_DAEMON_STORAGE_SLOW_STEP_KEEP_H_

#include <map>
#include <vector>

#include "common/status.h"
#include "model/keep.h"
#include "model/step_judge.h"
#include "model/store_batch.h"
#include "storage/sqlite_connection.h"
#include "storage/step_span_names.h"

namespace optrace::daemon {

// Turns committed steps into keep requests. Holds, per running session
// with steps, the durations of its last `window` steps.
// Thread rules: one thread (the store's writer).
class SlowStepKeeps {
 public:
  // Learns the ids of the step names when the stored dictionary of `db`
  // has them (a daemon restarted on the database). Errors: SQLite's.
  static Result<SlowStepKeeps> Create(SqliteConnection& db, StepJudgeRules rules = {});

  // One request per slow step among the ok spans of `batch`: its range of
  // start times, [start, start + duration], reason "slow step N" (N its
  // number in the session, counted as its steps commit: start order for
  // the steps of one thread). A session's steps are those of the first
  // kind it shows, explicit ones replacing profiler ones as step
  // detection does. Sessions that `batch` ends are forgotten.
  std::vector<KeepRequest> Keeps(const StoreBatch& batch);

 private:
  struct SessionSteps {
    StepSpanKind source;
    RollingStepJudge judge;
  };

  SlowStepKeeps(StepSpanNames names, StepJudgeRules rules)
      : names_(std::move(names)), rules_(rules) {}

  StepSpanNames names_;
  StepJudgeRules rules_;
  std::map<SessionId, SessionSteps> sessions_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_SLOW_STEP_KEEP_H_
