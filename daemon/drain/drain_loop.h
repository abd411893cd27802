// The drain thread: discovers segments, drains every attached one, hands
// what it reads to the correlators, cuts store batches, follows process
// exits and keeps producers' live levels.
#ifndef OPTRACE_DAEMON_DRAIN_DRAIN_LOOP_H_
#define OPTRACE_DAEMON_DRAIN_DRAIN_LOOP_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "control/control_segment.h"
#include "discovery/segment_watcher.h"
#include "drain/daemon_counters.h"
#include "drain/producer_session.h"
#include "levels/level_policy.h"
#include "storage/span_reader.h"
#include "storage/span_store.h"
#include "strings/string_dictionary.h"

namespace optrace::daemon {

struct DrainOptions {
  std::string shm_folder = "/dev/shm";
  reader::AttachPolicy attach;
  size_t budget_per_segment = 1 << 16;  // events per segment per pass (fairness)
  size_t batch_max_spans = 1 << 15;     // cut a batch at this many spans...
  int batch_max_age_ms = 20;            // ...or this old
  int min_interval_ms = 1;              // pass interval while events flow
  int max_interval_ms = 50;             // pass interval when idle (backs off)
  ProducerSession::Limits limits;
};

// Thread rules: Start, RequestStop, Join and SetPolicy from the owning
// thread; counters() from any thread. `store`, `control` and `listener`
// (may be null) must outlive the loop; `reader` (a connection of the drain
// thread's own to the store's database) is owned by it.
class DrainLoop {
 public:
  DrainLoop(DrainOptions options, SpanStore* store, std::unique_ptr<SpanReader> reader,
            ControlSegment* control, std::shared_ptr<const LevelPolicy> policy,
            LiveEventListener* listener);
  ~DrainLoop();
  DrainLoop(const DrainLoop&) = delete;
  DrainLoop& operator=(const DrainLoop&) = delete;

  // Starts watching and draining on a thread of its own, continuing the
  // sessions in `resume`. Fails when the shm folder cannot be watched.
  Status Start(ResumeState resume);

  // Asks the thread to drain what is there, store it, detach from the
  // producers and end. Join waits for that.
  void RequestStop();
  void Join();

  // Replaces the level policy (config reload); applied within one pass.
  void SetPolicy(std::shared_ptr<const LevelPolicy> policy);

  const DaemonCounters& counters() const { return counters_; }

 private:
  struct InFlight {
    uint64_t sequence;
    std::vector<RingCursor> cursors;
  };

  void Run();
  void Wake();
  void TryAttach(const std::string& name);
  void Adopt(std::unique_ptr<reader::AttachedSegment> segment);
  void FinalizeOrphans();
  void DrainAll(uint64_t now_ns, bool* drained_any);
  void FinishExited(uint64_t now_ns);
  void Housekeeping(uint64_t now_ns);
  void UpdateLevel(ProducerSession& s);
  void Cut(uint64_t now_ns);
  void ApplyCommits();
  void Shutdown();

  const DrainOptions options_;
  SpanStore* const store_;
  const std::unique_ptr<SpanReader> reader_;
  ControlSegment* const control_;
  LiveEventListener* const listener_;
  std::mutex policy_mu_;
  std::shared_ptr<const LevelPolicy> policy_;   // GUARDED_BY(policy_mu_)
  std::shared_ptr<const LevelPolicy> active_policy_;  // drain thread's copy

  DaemonCounters counters_;
  std::atomic<bool> stop_{false};
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  std::thread thread_;

  // Drain-thread state.
  ResumeState resume_;
  std::unique_ptr<SegmentWatcher> watcher_;
  StringDictionary dictionary_;
  std::map<SessionId, std::unique_ptr<ProducerSession>> sessions_;
  std::map<std::string, SessionId> by_segment_;
  std::set<std::string> rejected_;      // failed validation or already stored: never retried
  std::set<std::string> not_ready_;     // still initialising: retried
  std::set<SessionId> exited_;          // pidfd fired or liveness failed
  std::map<SessionId, uint64_t> final_sequence_;  // finished: removed once committed
  std::deque<InFlight> in_flight_;
  SessionId next_session_id_ = 1;
  uint64_t next_sequence_ = 1;
  uint64_t last_cut_ns_ = 0;
  uint64_t last_housekeeping_ns_ = 0;
  uint64_t last_heartbeat_ns_ = 0;
  uint64_t last_scan_ns_ = 0;
  uint64_t last_refine_ns_ = 0;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_DRAIN_DRAIN_LOOP_H_
