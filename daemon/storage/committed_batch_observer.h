// Who hears of each batch the writer has committed (the metrics registry):
// so that later stages count what is stored without reading it back.
#ifndef OPTRACE_DAEMON_STORAGE_COMMITTED_BATCH_OBSERVER_H_
#define OPTRACE_DAEMON_STORAGE_COMMITTED_BATCH_OBSERVER_H_

#include <span>
#include <string>
#include <utility>

#include "model/store_batch.h"

namespace optrace::daemon {

// Thread rules: OnCommitted is called on the store's writer thread, once
// per committed batch, in commit order, never for a batch rolled back or
// shed; it holds up the writer while it runs, so it must be cheap.
class CommittedBatchObserver {
 public:
  virtual ~CommittedBatchObserver() = default;

  // The dictionary as stored before this daemon started (ResumeState's
  // strings): ids that committed batches use without naming them.
  // Called once, before any OnCommitted.
  virtual void OnResumedStrings(std::span<const std::pair<StringId, std::string>> strings) = 0;

  // `batch` is committed. Borrowed for the call only.
  virtual void OnCommitted(const StoreBatch& batch) = 0;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_COMMITTED_BATCH_OBSERVER_H_
