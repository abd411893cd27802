// Every trigger that turns a committed batch into keeps: a crash
// (CrashKeeps), the latency rules of the config (LatencyKeepRules), the
// runtime's keep marks (RuntimeKeeps) and slow steps (SlowStepKeeps). The
// store records what they ask through KeepRecorder, before the window's
// next pass would trim it.
#ifndef OPTRACE_DAEMON_STORAGE_KEEP_TRIGGERS_H_
#define OPTRACE_DAEMON_STORAGE_KEEP_TRIGGERS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "common/status.h"
#include "model/keep.h"
#include "model/store_batch.h"
#include "storage/latency_keep.h"
#include "storage/runtime_keep.h"
#include "storage/slow_step_keep.h"
#include "storage/sqlite_connection.h"

namespace optrace::daemon {

// What the triggers keep around a moment, and the latency rules.
struct KeepTriggerOptions {
  int64_t keep_before_ns = 0;
  int64_t keep_after_ns = 0;
  std::vector<KeepRule> keep_rules;
};

// REQUIRES: `db` (the writer's connection) outlives this object.
// Thread rules: the store's writer thread.
class KeepTriggers {
 public:
  // Learns the ids of the strings the triggers match (rule names and tags,
  // a keep mark's name, steps' names) from the stored dictionary.
  // Errors: SQLite's.
  static Result<std::unique_ptr<KeepTriggers>> Create(SqliteConnection& db,
                                                      KeepTriggerOptions options);

  // The keeps every trigger asks of `batch`, just committed through `db`.
  std::vector<KeepRequest> Keeps(const StoreBatch& batch);

 private:
  KeepTriggers(int64_t keep_before_ns, std::unique_ptr<LatencyKeepRules> latency,
               std::unique_ptr<RuntimeKeeps> runtime, SlowStepKeeps slow_steps)
      : keep_before_ns_(keep_before_ns),
        latency_(std::move(latency)),
        runtime_(std::move(runtime)),
        slow_steps_(std::move(slow_steps)) {}

  const int64_t keep_before_ns_;                     // of crash keeps
  const std::unique_ptr<LatencyKeepRules> latency_;  // empty without rules
  const std::unique_ptr<RuntimeKeeps> runtime_;
  SlowStepKeeps slow_steps_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_KEEP_TRIGGERS_H_
