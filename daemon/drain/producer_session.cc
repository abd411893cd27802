#include "drain/producer_session.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

namespace optrace::daemon {
namespace {

constexpr auto kLaunch = static_cast<uint8_t>(abi::EventKind::kLaunch);
constexpr auto kComplete = static_cast<uint8_t>(abi::EventKind::kComplete);

int OpenPidfd(uint32_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0));
#else
  (void)pid;
  return -1;
#endif
}

// Events a span stands for: a paired span had two, a lone half one.
uint64_t EventsOf(const Span& s) { return s.status == SpanStatus::kOk ? 2 : 1; }

// Sets the end of `record`, whose open ops `correlator` has finished.
void EndRecord(const SpanCorrelator& correlator, SessionState state, int64_t end_realtime_ns,
               SessionRecord* record) {
  record->state = state;
  record->end_ns = end_realtime_ns;
  record->open_ops = correlator.stats().incomplete;
}

// Moves `record` and what `out` and `instants` hold for it into `batch`.
void MoveSessionInto(const SessionRecord& record, CorrelatorOutput* out,
                     std::vector<Instant>* instants, StoreBatch* batch) {
  const SessionId id = record.id;
  batch->sessions.push_back(record);
  if (!out->spans.empty()) batch->spans.push_back({id, std::move(out->spans)});
  if (!instants->empty()) batch->instants.push_back({id, std::move(*instants)});
  if (!out->halves_opened.empty()) {
    batch->halves_opened.push_back({id, std::move(out->halves_opened)});
  }
  for (const auto& [op_id, kind] : out->halves_closed) {
    batch->halves_closed.push_back({id, op_id, kind});
  }
}

}  // namespace

ProducerSession::ProducerSession(std::unique_ptr<reader::AttachedSegment> segment,
                                 SessionRecord record, StringDictionary* dictionary,
                                 LiveEventListener* listener, Limits limits)
    : segment_(std::move(segment)),
      record_(std::move(record)),
      dictionary_(dictionary),
      listener_(listener),
      drainer_(*segment_, reader::ReleasePolicy::kOnCommit),
      strings_(*segment_),
      listings_(*segment_, limits.listings),
      clock_(segment_->geometry()),
      correlator_([this](uint64_t a, uint64_t b) { return clock_.DurationNs(a, b); },
                  limits.max_open, limits.max_pending) {
  // Only a pid verified as the producer's names it here: a producer in
  // another PID namespace (or one claiming a pid not its own) is watched
  // through its liveness lock, polled.
  if (segment_->geometry().pid_verified) pidfd_ = OpenPidfd(segment_->geometry().name.pid);
  // The pid may have been reused before we opened the pidfd: then the
  // pidfd watches a stranger; rely on CheckLiveness instead.
  if (pidfd_ >= 0 && !reader::PidRunsAsRecorded(segment_->geometry())) {
    ::close(pidfd_);
    pidfd_ = -1;
  }
  restart_losses_ = record_.dropped_daemon_restart;
  shed_events_ = record_.dropped_shed;
  counted_before_ = record_;
}

ProducerSession::~ProducerSession() {
  if (pidfd_ >= 0) ::close(pidfd_);
}

void ProducerSession::Resume(const std::vector<RingCursor>& cursors,
                             const std::vector<HalfOp>& halves) {
  for (const RingCursor& c : cursors) {
    if (c.ring < drainer_.ring_count()) restart_losses_ += drainer_.ResumeAt(c.ring, c.position);
  }
  correlator_.Restore(halves);
  dirty_ = true;
}

StringId ProducerSession::Resolve(uint32_t id) {
  if (id == abi::kStringNone) return 0;
  if (id == reader::kInvalidStringId) return dictionary_->Intern("<invalid string id>");
  if (string_ids_.size() <= id)
    string_ids_.resize(std::min<size_t>(id + 1024, segment_->geometry().string_slots));
  if (id < string_ids_.size() && string_ids_[id] != 0) return string_ids_[id];
  const StringId global = dictionary_->Intern(strings_.Get(id, &stats_));
  if (id < string_ids_.size()) string_ids_[id] = global;
  return global;
}

void ProducerSession::Ingest(const abi::OpEvent& e) {
  if (e.kind == kLaunch || e.kind == kComplete) {
    HalfOp h;
    h.op_id = e.op_id;
    h.kind = e.kind;
    h.ts_ns = static_cast<int64_t>(clock_.ToRealtimeNs(e.ts));
    h.raw_ts = e.ts;
    h.parent_op_id = e.parent_op_id;
    h.has_device_ns = e.kind == kComplete && (e.flags & abi::kFlagDeviceDuration) != 0;
    h.device_ns = h.has_device_ns ? e.arg : 0;
    h.name = Resolve(e.name_id);
    h.tag = Resolve(e.tag_id);
    h.srcloc = Resolve(e.srcloc_id);
    h.tid = e.thread_id;
    h.stream = e.stream;
    h.device = e.device_id;
    h.target = e.target_kind;
    const size_t before = pending_.spans.size();
    correlator_.Add(h, &pending_);
    if (listener_ != nullptr && listener_->Active()) Publish(h, before);
    return;
  }
  Instant in;
  in.ts_ns = static_cast<int64_t>(clock_.ToRealtimeNs(e.ts));
  in.parent_op_id = e.parent_op_id;
  in.value = static_cast<int64_t>(e.arg);
  in.name = Resolve(e.name_id);
  in.tag = Resolve(e.tag_id);
  in.tid = e.thread_id;
  in.kind = e.kind;
  in.level = e.level;
  pending_instants_.push_back(in);
  ++record_.instants;
  if (listener_ != nullptr && listener_->Active()) listener_->OnInstant(record_, in, *dictionary_);
}

void ProducerSession::Publish(const HalfOp& half, size_t first_new_span) {
  std::optional<uint64_t> duration;
  for (size_t i = first_new_span; i < pending_.spans.size(); ++i) {
    const Span& s = pending_.spans[i];
    if (half.kind == kComplete && s.op_id == half.op_id) duration = KnownDuration(s);
  }
  listener_->OnHalf(record_, half, duration, *dictionary_);
  for (size_t i = first_new_span; i < pending_.spans.size(); ++i) {
    listener_->OnSpan(record_, pending_.spans[i], *dictionary_);
  }
}

bool ProducerSession::Drain(size_t budget, reader::DrainMode mode, uint64_t now_ns) {
  events_.clear();
  const bool more = drainer_.Drain(budget, mode, now_ns, &events_, &stats_);
  // An event finishes at most one span (evictions aside): grow once per
  // pass, not by doubling within it.
  if (pending_.spans.capacity() - pending_.spans.size() < events_.size()) {
    pending_.spans.reserve(
        std::max(pending_.spans.size() + events_.size(), 2 * pending_.spans.capacity()));
  }
  for (const abi::OpEvent& e : events_) Ingest(e);
  listings_.Read(drainer_.published_listings(), drainer_.published_strings(), strings_, &stats_);
  if (listings_.HasPending()) dirty_ = true;
  if (!events_.empty()) {
    record_.events += events_.size();
    dirty_ = true;
  }
  return more;
}

void ProducerSession::Finish(int64_t end_realtime_ns, uint64_t now_ns) {
  // Everything the process published is in the rings now; read to the end.
  while (Drain(1 << 20, reader::DrainMode::kFinal, now_ns)) {
  }
  const size_t before = pending_.spans.size();
  correlator_.Finish(&pending_);
  if (listener_ != nullptr && listener_->Active()) {
    for (size_t i = before; i < pending_.spans.size(); ++i) {
      listener_->OnSpan(record_, pending_.spans[i], *dictionary_);
    }
  }
  const auto fields = segment_->ReadProducerFields();
  const bool clean = fields && fields->exit_state == abi::ExitState::kClean;
  EndRecord(correlator_, clean ? SessionState::kExited : SessionState::kCrashed, end_realtime_ns,
            &record_);
  finished_ = true;
  dirty_ = true;
}

void ProducerSession::RefreshRecordCounters() {
  record_.spans = counted_before_.spans + correlator_.stats().spans;
  if (!finished_) record_.open_ops = correlator_.open_count();
  // The producer's own drop counters are cumulative in its segment.
  record_.dropped_ring_full = stats_.events_dropped_ring_full;
  record_.dropped_no_ring = stats_.events_dropped_no_ring;
  record_.strings_dropped = stats_.strings_dropped;
  record_.names_capped = stats_.names_capped;
  record_.full_ring_wait_ns = stats_.full_ring_wait_ns;
  record_.full_ring_wait_timeouts = stats_.full_ring_wait_timeouts;
  // Read again from the segment's start by every daemon: its own counts.
  record_.listings = listings_.Counts(stats_);
  record_.dropped_invalid = counted_before_.dropped_invalid + stats_.events_invalid +
                            stats_.slots_torn + stats_.events_lost_resync;
  record_.dropped_daemon_restart = restart_losses_;
  record_.dropped_shed = shed_events_;
}

bool ProducerSession::HasPending() const {
  return dirty_ || listings_.HasPending() || !pending_.spans.empty() ||
         !pending_instants_.empty() || !pending_.halves_closed.empty();
}

size_t ProducerSession::CutInto(StoreBatch* batch) {
  correlator_.PersistWaiting(&pending_);
  RefreshRecordCounters();
  const SessionId id = record_.id;
  const size_t spans = pending_.spans.size();
  MoveSessionInto(record_, &pending_, &pending_instants_, batch);
  listings_.MoveInto(id, &batch->listings);
  for (uint32_t r = 0; r < drainer_.ring_count(); ++r) {
    batch->cursors.push_back({id, r, drainer_.consumed_position(r)});
  }
  pending_ = CorrelatorOutput{};
  pending_instants_.clear();
  dirty_ = false;
  if (loss_uncut_) {
    loss_uncut_ = false;
    release_from_sequence_ = batch->sequence;
  }
  return spans;
}

void ProducerSession::CloseOrphan(SessionRecord record, const std::vector<HalfOp>& halves,
                                  int64_t end_realtime_ns, StoreBatch* batch) {
  // No rings are left to read, so no clock is needed: the halves are all
  // there is.
  SpanCorrelator correlator([](uint64_t, uint64_t) { return uint64_t{0}; }, 1, 1);
  correlator.Restore(halves);
  CorrelatorOutput out;
  correlator.Finish(&out);
  EndRecord(correlator, SessionState::kCrashed, end_realtime_ns, &record);
  record.spans += correlator.stats().spans;
  std::vector<Instant> no_instants;
  MoveSessionInto(record, &out, &no_instants, batch);
}

uint64_t ProducerSession::OnNotStored(StoreBatch* batch) {
  const SessionId id = record_.id;
  const uint64_t before = shed_events_;
  for (const SessionSpans& part : batch->spans) {
    if (part.session != id) continue;
    for (const Span& s : part.spans) shed_events_ += EventsOf(s);
  }
  for (const SessionInstants& part : batch->instants) {
    if (part.session == id) shed_events_ += part.instants.size();
  }
  for (const SessionHalves& part : batch->halves_opened) {
    if (part.session == id) correlator_.Unpersist(part.halves);
  }
  // Still stored as open: delete them with the next cut (deleting one the
  // database never held is harmless).
  for (const HalfOpKey& key : batch->halves_closed) {
    if (key.session == id) pending_.halves_closed.emplace_back(key.op_id, key.kind);
  }
  for (SourceListing& listing : batch->listings) {
    if (listing.session == id) listings_.Return(std::move(listing));
  }
  loss_uncut_ = true;
  dirty_ = true;
  return shed_events_ - before;
}

void ProducerSession::OnCommitted(const RingCursor& cursor, uint64_t sequence) {
  if (loss_uncut_ || sequence < release_from_sequence_) return;
  if (cursor.ring < drainer_.ring_count()) drainer_.MarkCommitted(cursor.ring, cursor.position);
}

}  // namespace optrace::daemon
