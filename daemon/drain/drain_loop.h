// The drain thread's event loop and pass scheduler: wakes on new segments,
// producer wake-ups, process exits and its timer, and runs each pass along
// one path: admit segments (SegmentAdmission), drain every ring into its
// ProducerSession, finish exited sessions, answer other threads' calls
// (DrainCalls), keep levels and heartbeats (LevelControl), cut and submit a
// batch and follow its commit (BatchPipeline).
#ifndef OPTRACE_DAEMON_DRAIN_DRAIN_LOOP_H_
#define OPTRACE_DAEMON_DRAIN_DRAIN_LOOP_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "control/control_segment.h"
#include "discovery/segment_watcher.h"
#include "drain/batch_pipeline.h"
#include "drain/daemon_counters.h"
#include "drain/drain_calls.h"
#include "drain/drain_wakeups.h"
#include "drain/ingest_rate.h"
#include "drain/level_control.h"
#include "drain/producer_session.h"
#include "drain/segment_admission.h"
#include "drain/tail_level_source.h"
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
  // A pass that read at least this many events from one segment is
  // followed by the next at once, without sleeping: that producer writes
  // more than 2M events/s, faster than one pass a millisecond keeps up
  // with once a burst has filled its rings.
  size_t busy_pass_events = 2048;
  int max_interval_ms = 50;  // pass interval when idle (backs off)
  // The backoff's ceiling while a tail listens: its events must reach it
  // within milliseconds even when they follow a quiet spell.
  int live_max_interval_ms = 2;
  ProducerSession::Limits limits;
  // Segments of one uid attached at once (SegmentAdmission::Options).
  uint32_t max_segments_per_uid = 256;
  // Called from the drain thread every `alive_interval_ns` (0: never), to
  // tell a service manager's watchdog that draining goes on.
  std::function<void()> alive;
  uint64_t alive_interval_ns = 0;
};

// An op still open in a live producer, strings resolved.
struct OpenOpView {
  HalfOp launch;
  std::string name;
  std::string tag;
  std::string srcloc;
};

// Live totals for GetStatus.
struct DrainStatus {
  uint32_t attached_segments = 0;
  uint32_t running_sessions = 0;
  double events_per_second = 0;
  SessionRecord drops;                   // only the dropped_* fields, summed over live sessions
  std::vector<SessionId> live_sessions;  // the sessions `drops` covers
  abi::LevelValue default_level = abi::LevelValue::kOff;
};

// Thread rules: Start, RequestStop, Join and SetPolicy from the owning
// thread; counters(), RefreshLevels and the live views from any thread
// (they run on the drain thread and wait for it). `store`, `control`,
// `listener` and `tails` (may be null) must outlive the loop; `reader` (a
// connection of the drain thread's own to the store's database) is owned.
class DrainLoop {
 public:
  DrainLoop(DrainOptions options, SpanStore* store, std::unique_ptr<SpanReader> reader,
            ControlSegment* control, std::shared_ptr<const LevelPolicy> policy,
            LiveEventListener* listener, const TailLevelSource* tails);
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

  // Re-evaluates every producer's level within one pass (tails changed).
  void RefreshLevels();

  // Live views and level changes, run on the drain thread. nullopt when it
  // does not answer within `kCallTimeout` (it is stuck or stopping).
  std::optional<std::vector<LiveProducer>> LiveProducers();
  // The `max` oldest ops open in live session `id` (SpanCorrelator::
  // OpenLaunches), strings resolved; an empty optional inside when the
  // session is not live (ended or unknown).
  std::optional<std::optional<std::vector<OpenOpView>>> OpenOps(SessionId id, size_t max);
  // Applies `change` and returns the number of live producers it reached.
  std::optional<uint32_t> ApplyLevelChange(const LevelChange& change);
  std::optional<DrainStatus> LiveStatus();

  static constexpr std::chrono::milliseconds kCallTimeout{5000};

 private:
  // Runs `fn` on the drain thread; nullopt after kCallTimeout.
  template <typename T>
  std::optional<T> Call(std::function<T()> fn) {
    return calls_.Call<T>(std::move(fn), kCallTimeout);
  }

  void Run();
  void Wake();
  void TryAttach(const std::string& name);
  void Adopt(SegmentAdmission::Admitted admitted);
  // Drains every live session once. Returns the most events read from one
  // session (0: nothing flowed).
  uint64_t DrainAll(uint64_t now_ns);
  void FinishExited(uint64_t now_ns);
  void Housekeeping(uint64_t now_ns);
  void ApplyCommits();
  void Shutdown();

  const DrainOptions options_;
  SpanStore* const store_;
  const std::unique_ptr<SpanReader> reader_;
  ControlSegment* const control_;
  LiveEventListener* const listener_;
  DrainCalls calls_;
  std::atomic<bool> levels_dirty_{true};

  DaemonCounters counters_;
  LevelControl levels_;
  std::atomic<bool> stop_{false};
  int epoll_fd_ = -1;
  std::unique_ptr<DrainWakeups> wakeups_;
  std::thread thread_;

  // Drain-thread state.
  std::unique_ptr<SegmentWatcher> watcher_;
  StringDictionary dictionary_;
  BatchPipeline pipeline_;
  SegmentAdmission admission_;
  SessionMap sessions_;
  std::set<SessionId> exited_;  // pidfd fired or liveness failed
  uint64_t last_housekeeping_ns_ = 0;
  uint64_t last_heartbeat_ns_ = 0;
  uint64_t last_scan_ns_ = 0;
  uint64_t last_refine_ns_ = 0;
  uint64_t last_alive_ns_ = 0;
  IngestRate rate_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_DRAIN_DRAIN_LOOP_H_
