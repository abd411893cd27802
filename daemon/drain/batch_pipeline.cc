#include "drain/batch_pipeline.h"

#include <algorithm>

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
  // Shed: the writer is behind, and the batch is still ours. Count what is
  // lost per session; records, cursors, strings, halves and listings go
  // into the next batch again.
  counters_->batches_shed.fetch_add(1, std::memory_order_relaxed);
  dictionary_->ReturnAdditions(std::move(batch.new_strings));
  for (const SessionRecord& r : batch.sessions) {
    auto it = sessions.find(r.id);
    if (it == sessions.end()) continue;
    auto of_session = [&](const auto& parts) {
      auto part = std::find_if(parts.begin(), parts.end(),
                               [&](const auto& p) { return p.session == r.id; });
      return part == parts.end() ? nullptr : &*part;
    };
    counters_->events_shed.fetch_add(
        it->second->OnShed(of_session(batch.spans), of_session(batch.instants),
                           of_session(batch.halves_opened)),
        std::memory_order_relaxed);
  }
  for (SourceListing& listing : batch.listings) {
    auto it = sessions.find(listing.session);
    if (it != sessions.end()) it->second->ReturnListing(std::move(listing));
  }
  LogWarning("writer queue full: shed batch {} ({} sessions)", flight.sequence,
             batch.sessions.size());
  return true;
}

bool BatchPipeline::SubmitAlone(StoreBatch batch) {
  batch.sequence = next_sequence_++;
  return store_->Submit(std::move(batch));
}

std::vector<SessionId> BatchPipeline::ApplyCommits(SessionMap& sessions) {
  const uint64_t committed = store_->CommittedSequence();
  while (!in_flight_.empty() && in_flight_.front().sequence <= committed) {
    for (const RingCursor& c : in_flight_.front().cursors) {
      auto it = sessions.find(c.session);
      if (it != sessions.end()) it->second->OnCommitted(c);
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
