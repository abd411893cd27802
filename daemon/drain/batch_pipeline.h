// The way from drained sessions to committed store batches: cuts what the
// sessions accumulated into one batch when it is big or old enough, hands
// it to the SpanStore, accounts for a shed batch, and follows commits back
// to the rings and to finished sessions whose end is stored.
#ifndef OPTRACE_DAEMON_DRAIN_BATCH_PIPELINE_H_
#define OPTRACE_DAEMON_DRAIN_BATCH_PIPELINE_H_

#include <cstdint>
#include <deque>
#include <map>
#include <vector>

#include "drain/daemon_counters.h"
#include "drain/producer_session.h"
#include "model/store_batch.h"
#include "storage/span_store.h"
#include "strings/string_dictionary.h"

namespace optrace::daemon {

// Thread rules: the drain thread only. `store`, `dictionary` and `counters`
// must outlive the pipeline.
class BatchPipeline {
 public:
  struct Limits {
    size_t max_spans = 1 << 15;  // cut a batch at this many spans...
    int max_age_ms = 20;         // ...or this old
  };

  BatchPipeline(SpanStore* store, StringDictionary* dictionary, DaemonCounters* counters,
                Limits limits);

  // Starts the age of the first batch at `now_ns`.
  void StartClock(uint64_t now_ns) { last_cut_ns_ = now_ns; }
  // Makes the next Cut due whatever its age (an ending session's record
  // should be stored promptly).
  void CutSoon() { last_cut_ns_ = 0; }

  // When something is pending and the batch is due (max_spans or
  // max_age_ms reached), moves every pending session's part into one batch
  // and submits it. A batch the store refuses (writer queue full) is shed:
  // its events are counted per session and in `events_shed`, and records,
  // cursors, strings, halves and listings go into the next batch. Returns
  // true when a batch was shed.
  bool Cut(uint64_t now_ns, SessionMap& sessions);

  // Submits `batch`, built outside the sessions (a session closed with
  // nothing attached), under the next sequence. False when the store
  // refused it.
  bool SubmitAlone(StoreBatch batch);

  // Releases the ring slots of every committed batch, and returns the
  // finished sessions whose last batch committed and which have nothing
  // pending: their segments can go. The caller removes them from
  // `sessions`. A batch the database refused (SpanStore::TakeRefused) is
  // taken back as a shed one is, its events counted per session and in
  // `events_refused`: its sessions release no ring slot and none is
  // returned as done until a batch with their records, which count the
  // loss, has committed.
  std::vector<SessionId> ApplyCommits(SessionMap& sessions);

 private:
  // Takes back a batch that will never be stored: its strings go back to
  // the dictionary, and each of its sessions takes back its part
  // (ProducerSession::OnNotStored). Returns the events lost.
  uint64_t TakeBack(StoreBatch* batch, SessionMap& sessions);

  struct InFlight {
    uint64_t sequence;
    std::vector<RingCursor> cursors;
  };

  SpanStore* const store_;
  StringDictionary* const dictionary_;
  DaemonCounters* const counters_;
  const Limits limits_;
  std::deque<InFlight> in_flight_;
  std::map<SessionId, uint64_t> final_sequence_;  // finished: removed once committed
  uint64_t next_sequence_ = 1;
  uint64_t last_cut_ns_ = 0;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_DRAIN_BATCH_PIPELINE_H_
