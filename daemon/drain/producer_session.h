// One attached producer: its segment, the drainer and string reader over
// it, its correlator and its session record. The drain loop owns one per
// live (or finishing) producer process.
#ifndef OPTRACE_DAEMON_DRAIN_PRODUCER_SESSION_H_
#define OPTRACE_DAEMON_DRAIN_PRODUCER_SESSION_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "correlate/span_correlator.h"
#include "drain/listing_intake.h"
#include "model/store_batch.h"
#include "optrace/reader/attached_segment.h"
#include "optrace/reader/clock_converter.h"
#include "optrace/reader/segment_drainer.h"
#include "optrace/reader/string_table_reader.h"
#include "strings/string_dictionary.h"

namespace optrace::daemon {

// Receives every event as it is ingested (live tails). Called on the drain
// thread; must not block. Strings resolve through `strings`, valid during
// the call only.
class LiveEventListener {
 public:
  virtual ~LiveEventListener() = default;
  // Cheap check before any work: is anybody listening?
  virtual bool Active() const = 0;
  // A LAUNCH or COMPLETE; `duration_ns` is the op's duration (0 ns
  // included) for a COMPLETE whose LAUNCH was seen, else nullopt.
  virtual void OnHalf(const SessionRecord& session, const HalfOp& half,
                      std::optional<uint64_t> duration_ns, const StringDictionary& strings) = 0;
  virtual void OnInstant(const SessionRecord& session, const Instant& instant,
                         const StringDictionary& strings) = 0;
  virtual void OnSpan(const SessionRecord& session, const Span& span,
                      const StringDictionary& strings) = 0;
};

// Thread rules: the drain thread only, except where noted.
class ProducerSession {
 public:
  struct Limits {
    size_t max_open = 1 << 20;     // open LAUNCHes kept for pairing
    size_t max_pending = 1 << 16;  // COMPLETEs waiting for their LAUNCH
    ListingLimits listings;
  };

  // Wraps `segment` as session `record` (fresh, or continued after a daemon
  // restart: then call Resume before the first Drain). `dictionary` and
  // `listener` (may be null) must outlive the session.
  ProducerSession(std::unique_ptr<reader::AttachedSegment> segment, SessionRecord record,
                  StringDictionary* dictionary, LiveEventListener* listener, Limits limits);
  ~ProducerSession();
  ProducerSession(const ProducerSession&) = delete;
  ProducerSession& operator=(const ProducerSession&) = delete;

  // Continues after a daemon restart: skips what the previous daemon
  // stored, counts what it read but never stored, and restores the halves
  // it persisted.
  void Resume(const std::vector<RingCursor>& cursors, const std::vector<HalfOp>& halves);

  // One drain pass of at most `budget` events. Returns true when events
  // were left behind (budget exhausted or a slot not yet readable).
  bool Drain(size_t budget, reader::DrainMode mode, uint64_t now_ns);

  // The process has ended: drains what is left, turns open ops into
  // incomplete spans, and sets the end state (exited when the producer
  // flagged a clean exit, crashed otherwise).
  void Finish(int64_t end_realtime_ns, uint64_t now_ns);

  // Closes a session a previous daemon left running whose segment is gone
  // (its process ended while no daemon ran): as Finish and CutInto do for
  // a live one, turns the `halves` that daemon persisted into incomplete
  // spans and moves them into `batch` with `record`, ended crashed at
  // `end_realtime_ns`.
  static void CloseOrphan(SessionRecord record, const std::vector<HalfOp>& halves,
                          int64_t end_realtime_ns, StoreBatch* batch);

  // Moves everything accumulated since the last cut into `batch`
  // (REQUIRES: its sequence set), with the session record and the ring
  // cursors it makes durable. Returns the number of spans moved.
  size_t CutInto(StoreBatch* batch);

  // A batch that carried a cut of this session will never be stored: shed
  // (the writer's queue was full) or refused by the database. Counts this
  // session's spans and instants in it as lost (dropped_shed), and takes
  // back what must still reach the database with the next cut: the record
  // (its counts now include the loss), the halves it persisted or closed,
  // and its listings (moved out of `batch`). Until a batch with that
  // record commits, no ring slot is released (OnCommitted), so that an
  // event leaves its ring only once it is stored or its loss is. Returns
  // the events lost.
  uint64_t OnNotStored(StoreBatch* batch);

  // Batch `sequence`, which carried `cursor`, committed: the ring may
  // release those slots, unless this session's loss of an earlier batch
  // is not yet stored (OnNotStored).
  void OnCommitted(const RingCursor& cursor, uint64_t sequence);

  // True when something waits for the next cut.
  bool HasPending() const;
  size_t pending_spans() const { return pending_.spans.size(); }
  bool finished() const { return finished_; }

  const SessionRecord& record() const { return record_; }
  reader::AttachedSegment& segment() { return *segment_; }
  const reader::ReaderStats& reader_stats() const { return stats_; }
  const SpanCorrelator& correlator() const { return correlator_; }

  // The pidfd of the producer (readable once it exits), or -1 when the
  // kernel gave none or its pid is not verified (another PID namespace):
  // then the caller polls CheckLiveness.
  int pidfd() const { return pidfd_; }

  // Live level bookkeeping: what the daemon last wrote, and the explicit
  // override (SetLevel for this producer), if any.
  std::optional<abi::LevelValue> written_level;
  std::optional<abi::LevelValue> override_level;

 private:
  StringId Resolve(uint32_t segment_string_id);
  void Ingest(const abi::OpEvent& e);
  // Hands a half and the spans it completed (from index `first_new_span`
  // of the pending spans) to the listener.
  void Publish(const HalfOp& half, size_t first_new_span);
  void RefreshRecordCounters();

  std::unique_ptr<reader::AttachedSegment> segment_;
  SessionRecord record_;
  StringDictionary* dictionary_;
  LiveEventListener* listener_;
  reader::SegmentDrainer drainer_;
  reader::StringTableReader strings_;
  ListingIntake listings_;
  reader::ClockConverter clock_;
  SpanCorrelator correlator_;
  reader::ReaderStats stats_;
  std::vector<StringId> string_ids_;  // segment string id -> dictionary id (0 = not yet)
  std::vector<abi::OpEvent> events_;  // drain scratch
  CorrelatorOutput pending_;
  std::vector<Instant> pending_instants_;
  uint64_t restart_losses_ = 0;
  uint64_t shed_events_ = 0;  // shed or refused: events of batches never stored
  // A loss (OnNotStored) waits for the next cut to carry it; then the
  // sequence of that cut: ring slots are released from its commit on.
  bool loss_uncut_ = false;
  uint64_t release_from_sequence_ = 0;
  // The daemon-side counts a previous daemon stored for this session; this
  // daemon's own counts add to them, so that a restart resets nothing.
  SessionRecord counted_before_;
  bool dirty_ = true;
  bool finished_ = false;
  int pidfd_ = -1;
};

// The drain thread's sessions, by id.
using SessionMap = std::map<SessionId, std::unique_ptr<ProducerSession>>;

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_DRAIN_PRODUCER_SESSION_H_
