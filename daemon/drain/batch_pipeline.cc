#include "drain/batch_pipeline.h"

#include "log/log.h"

namespace optrace::daemon {
namespace {

constexpr uint64_t kMs = 1'000'000;

}  // namespace

BatchPipeline::BatchPipeline(SpanStore* store, StringDictionary* dictionary,
                             DaemonCounters* counters, Limits limits)
    : store_(store), dictionary_(dictionary), counters_(counters), limits_(limits) {}

bool BatchPipeline::Cut(uint64_t now_ns, SessionMap& sessions) {
  size_t pending_spans = 0;
  bool pending = false;
  for (const auto& [id, s] : sessions) {
    pending_spans += s->pending_spans();
    pending = pending || s->HasPending();
  }
  const bool due = now_ns - last_cut_ns_ >= static_cast<uint64_t>(limits_.max_age_ms) * kMs;
  if (!pending || (pending_spans < limits_.max_spans && !due)) return false;
  last_cut_ns_ = now_ns;

  StoreBatch batch;
  batch.sequence = next_sequence_++;
  batch.new_strings = dictionary_->TakeAdditions();
  for (auto& [id, s] : sessions) {
    if (s->HasPending()) s->CutInto(&batch);
  }
  InFlight flight{batch.sequence, batch.cursors};
  std::vector<SessionId> finishing;
  for (const SessionRecord& r : batch.sessions) {
    if (r.state != SessionState::kRunning) finishing.push_back(r.id);
  }
  if (store_->TrySubmit(&batch)) {
    counters_->batches_submitted.fetch_add(1, std::memory_order_relaxed);
    for (SessionId id : finishing) final_sequence_[id] = flight.sequence;
    in_flight_.push_back(std::move(flight));
    return false;
  }
  // Shed: the writer is behind, and the batch is still ours.
  counters_->batches_shed.fetch_add(1, std::memory_order_relaxed);
  counters_->events_shed.fetch_add(TakeBack(&batch, sessions), std::memory_order_relaxed);
  LogWarning("writer queue full: shed batch {} ({} sessions)", flight.sequence,
             batch.sessions.size());
  return true;
}

uint64_t BatchPipeline::TakeBack(StoreBatch* batch, SessionMap& sessions) {
  dictionary_->ReturnAdditions(std::move(batch->new_strings));
  uint64_t lost = 0;
  for (const SessionRecord& r : batch->sessions) {
    auto it = sessions.find(r.id);
    if (it != sessions.end()) {
      lost += it->second->OnNotStored(batch);
      final_sequence_.erase(r.id);  // its end goes into a later batch
    } else {
      // Only a session closed alone (SubmitAlone) has no ProducerSession:
      // it stays running in the database, and the next daemon closes it.
      LogWarning("the end of session {} was not stored; a restarted daemon closes it again", r.id);
    }
  }
  return lost;
}

bool BatchPipeline::SubmitAlone(StoreBatch batch) {
  batch.sequence = next_sequence_++;
  return store_->Submit(std::move(batch));
}

std::vector<SessionId> BatchPipeline::ApplyCommits(SessionMap& sessions) {
  const uint64_t committed = store_->CommittedSequence();
  // Taken after reading `committed`: every batch at or below it that did
  // not commit is among these, and its sessions hold their ring slots
  // (OnNotStored) before the loop below would release them.
  for (StoreBatch& refused : store_->TakeRefused()) {
    const uint64_t lost = TakeBack(&refused, sessions);
    counters_->events_refused.fetch_add(lost, std::memory_order_relaxed);
    LogWarning("the database refused batch {} ({} sessions, {} events lost); see writer_last_error",
               refused.sequence, refused.sessions.size(), lost);
  }
  while (!in_flight_.empty() && in_flight_.front().sequence <= committed) {
    for (const RingCursor& c : in_flight_.front().cursors) {
      auto it = sessions.find(c.session);
      if (it != sessions.end()) it->second->OnCommitted(c, in_flight_.front().sequence);
    }
    in_flight_.pop_front();
  }
  // A finished session whose end is stored: its segment can go.
  std::vector<SessionId> stored;
  for (auto it = final_sequence_.begin(); it != final_sequence_.end();) {
    auto session = sessions.find(it->first);
    if (it->second > committed || session == sessions.end() || session->second->HasPending()) {
      ++it;
      continue;
    }
    stored.push_back(it->first);
    it = final_sequence_.erase(it);
  }
  return stored;
}

}  // namespace optrace::daemon
