#include "drain/drain_loop.h"

#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/clock_now.h"
#include "common/this_thread.h"
#include "log/log.h"
#include "optrace/reader/clock_converter.h"

namespace optrace::daemon {
namespace {

constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kHousekeepingNs = 100 * kMs;
constexpr uint64_t kHeartbeatNs = 1000 * kMs;
constexpr uint64_t kScanNs = 2000 * kMs;
constexpr uint64_t kRefineTscNs = 10'000 * kMs;
// epoll data for the two fixed fds; pidfds carry their session id + 2.
constexpr uint64_t kWatcherTag = 0;
constexpr uint64_t kWakeTag = 1;
constexpr uint64_t kFirstSessionTag = 2;

SegmentAdmission::Options AdmissionOptionsOf(const DrainOptions& drain) {
  SegmentAdmission::Options options;
  options.shm_folder = drain.shm_folder;
  options.attach = drain.attach;
  options.limits = drain.limits;
  options.max_segments_per_uid = drain.max_segments_per_uid;
  return options;
}

}  // namespace

DrainLoop::DrainLoop(DrainOptions options, SpanStore* store, std::unique_ptr<SpanReader> reader,
                     ControlSegment* control, std::shared_ptr<const LevelPolicy> policy,
                     LiveEventListener* listener, const TailLevelSource* tails)
    : options_(std::move(options)),
      store_(store),
      reader_(std::move(reader)),
      control_(control),
      listener_(listener),
      calls_([this] { Wake(); }),
      levels_(std::move(policy), tails, &counters_),
      pipeline_(store, &dictionary_, &counters_,
                {.max_spans = options_.batch_max_spans, .max_age_ms = options_.batch_max_age_ms}),
      admission_(AdmissionOptionsOf(options_), reader_.get(), &dictionary_, listener_, &counters_) {
}

DrainLoop::~DrainLoop() {
  if (thread_.joinable()) {
    RequestStop();
    Join();
  }
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
}

Status DrainLoop::Start(ResumeState resume) {
  auto watcher = SegmentWatcher::Create(options_.shm_folder, options_.attach.ns);
  if (!watcher.ok()) return watcher.status();
  watcher_ = std::move(watcher).value();
  auto wakeups = DrainWakeups::Create(control_, &counters_.producer_wakeups);
  if (!wakeups.ok()) return wakeups.status();
  wakeups_ = std::move(wakeups).value();
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) return Status::IoError(std::string("epoll: ") + std::strerror(errno));
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kWatcherTag;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, watcher_->fd(), &ev);
  ev.data.u64 = kWakeTag;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wakeups_->fd(), &ev);
  dictionary_.Load(resume.strings);
  admission_.Resume(std::move(resume));
  levels_.AdoptPolicy();
  thread_ = std::thread([this] { Run(); });
  return Status::Ok();
}

void DrainLoop::RequestStop() {
  stop_.store(true);
  Wake();
}

void DrainLoop::Join() {
  if (thread_.joinable()) thread_.join();
}

void DrainLoop::SetPolicy(std::shared_ptr<const LevelPolicy> policy) {
  levels_.SetPolicy(std::move(policy));
}

void DrainLoop::Wake() {
  if (wakeups_ != nullptr) wakeups_->Notify();
}

void DrainLoop::Run() {
  NameThisThread("optrace-drain");
  // Producers that existed before us (or across our restart) first.
  admission_.Scanned(watcher_->Scan(), ClockNowNs(CLOCK_MONOTONIC),
                     [this](SegmentAdmission::Admitted admitted) { Adopt(std::move(admitted)); });
  admission_.CloseOrphans(&pipeline_);
  int interval_ms = options_.min_interval_ms;
  pipeline_.StartClock(ClockNowNs(CLOCK_MONOTONIC));
  epoll_event events[64];
  while (!stop_.load()) {
    wakeups_->BeforeSleep();
    const int n = ::epoll_wait(epoll_fd_, events, 64, interval_ms);
    wakeups_->AfterSleep();
    for (int i = 0; i < n; ++i) {
      const uint64_t tag = events[i].data.u64;
      if (tag == kWatcherTag) {
        bool overflowed = false;
        for (const std::string& name : watcher_->ReadNewNames(&overflowed)) TryAttach(name);
        if (overflowed) last_scan_ns_ = 0;  // rescan now
      } else if (tag == kWakeTag) {
        wakeups_->Consume();
      } else {
        exited_.insert(tag - kFirstSessionTag);
      }
    }
    const uint64_t now = ClockNowNs(CLOCK_MONOTONIC);
    const uint64_t most_read = DrainAll(now);
    FinishExited(now);
    calls_.RunAll();
    if (now - last_housekeeping_ns_ >= kHousekeepingNs || levels_dirty_.load()) Housekeeping(now);
    pipeline_.Cut(now, sessions_);
    ApplyCommits();
    // Work proportional to events: no sleep while a producer outpaces one
    // pass a millisecond, back off while nothing flows, less far while
    // somebody tails.
    const bool tailed = listener_ != nullptr && listener_->Active();
    if (most_read >= options_.busy_pass_events) {
      interval_ms = 0;
    } else if (most_read > 0) {
      interval_ms = options_.min_interval_ms;
    } else {
      interval_ms = std::max(1, std::min(interval_ms * 2, tailed ? options_.live_max_interval_ms
                                                                 : options_.max_interval_ms));
    }
  }
  Shutdown();
}

void DrainLoop::TryAttach(const std::string& name) {
  if (auto admitted = admission_.TryAttach(name, ClockNowNs(CLOCK_MONOTONIC)))
    Adopt(std::move(*admitted));
}

void DrainLoop::Adopt(SegmentAdmission::Admitted admitted) {
  std::unique_ptr<ProducerSession> session = std::move(admitted.session);
  const SessionId id = session->record().id;
  if (session->pidfd() >= 0) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = id + kFirstSessionTag;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, session->pidfd(), &ev);
  }
  session->segment().WriteDaemonPresence(static_cast<uint32_t>(::getpid()),
                                         ClockNowNs(CLOCK_MONOTONIC));
  levels_.Update(*session);
  // The producer may be waiting for this (its start-up handshake): its
  // rings are drained from the next pass, which follows at once.
  session->segment().SignalAttached();
  // A producer that died while no daemon ran: ingest it as it is.
  if (session->segment().CheckLiveness() == reader::ProducerLiveness::kGone) exited_.insert(id);
  LogInfo("attached {} as session {} (pid {}, label '{}'{})", session->segment().shm_name(), id,
          session->record().pid, session->record().label, admitted.resumed ? ", resumed" : "");
  counters_.segments_attached.fetch_add(1);
  sessions_[id] = std::move(session);
}

uint64_t DrainLoop::DrainAll(uint64_t now_ns) {
  counters_.drain_passes.fetch_add(1, std::memory_order_relaxed);
  uint64_t most_read = 0;
  for (auto& [id, s] : sessions_) {
    if (s->finished()) continue;
    const uint64_t before = s->record().events;
    const uint64_t violations = s->reader_stats().Violations();
    s->Drain(options_.budget_per_segment, reader::DrainMode::kLive, now_ns);
    const uint64_t read = s->record().events - before;
    if (read > 0) {
      most_read = std::max(most_read, read);
      counters_.events_ingested.fetch_add(read, std::memory_order_relaxed);
    }
    const uint64_t new_violations = s->reader_stats().Violations() - violations;
    if (new_violations > 0) {
      counters_.abi_violations.fetch_add(new_violations, std::memory_order_relaxed);
      LogWarning(
          "segment {}: {} ABI violations in one pass (corrupt {}, torn {}, invalid {}, "
          "unknown strings {}, faults {})",
          s->segment().shm_name(), new_violations, s->reader_stats().ring_corrupt,
          s->reader_stats().slots_torn, s->reader_stats().events_invalid,
          s->reader_stats().unknown_string_ids, s->reader_stats().shm_faults);
    }
  }
  return most_read;
}

void DrainLoop::FinishExited(uint64_t now_ns) {
  if (exited_.empty()) return;
  const auto end_ns = static_cast<int64_t>(ClockNowNs(CLOCK_REALTIME));
  for (SessionId id : exited_) {
    auto it = sessions_.find(id);
    if (it == sessions_.end() || it->second->finished()) continue;
    ProducerSession& s = *it->second;
    if (s.pidfd() >= 0) ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, s.pidfd(), nullptr);
    s.Finish(end_ns, now_ns);
    counters_.sessions_finished.fetch_add(1);
    LogInfo("session {} (pid {}) {}: {} events, {} ops left open", id, s.record().pid,
            SessionStateName(s.record().state), s.record().events, s.record().open_ops);
  }
  exited_.clear();
  pipeline_.CutSoon();  // store the end promptly
}

void DrainLoop::Housekeeping(uint64_t now_ns) {
  last_housekeeping_ns_ = now_ns;
  levels_dirty_.store(false);
  levels_.AdoptPolicy();
  const bool heartbeat = now_ns - last_heartbeat_ns_ >= kHeartbeatNs;
  if (heartbeat) {
    rate_.Sample(now_ns, counters_.events_ingested.load());
  }
  if (heartbeat) last_heartbeat_ns_ = now_ns;
  for (auto& [id, s] : sessions_) {
    if (s->finished()) continue;
    levels_.Update(*s);
    if (heartbeat) {
      s->segment().WriteDaemonPresence(static_cast<uint32_t>(::getpid()), now_ns);
      // Without a pidfd, liveness is polled.
      if (s->pidfd() < 0 && s->segment().CheckLiveness() == reader::ProducerLiveness::kGone) {
        exited_.insert(id);
      }
    }
  }
  if (control_ != nullptr) {
    control_->SetDefaultLevel(levels_.LevelForNewProducers());
    if (heartbeat) control_->Heartbeat(now_ns);
  }
  const auto adopt = [this](SegmentAdmission::Admitted admitted) { Adopt(std::move(admitted)); };
  if (now_ns - last_scan_ns_ >= kScanNs) {
    last_scan_ns_ = now_ns;
    admission_.Scanned(watcher_->Scan(), now_ns, adopt);
  }
  admission_.RetryDue(now_ns, adopt);
  if (options_.alive && options_.alive_interval_ns != 0 &&
      now_ns - last_alive_ns_ >= options_.alive_interval_ns) {
    last_alive_ns_ = now_ns;
    options_.alive();
  }
  if (now_ns - last_refine_ns_ >= kRefineTscNs) {
    last_refine_ns_ = now_ns;
    reader::RefineTscRate();
  }
}

void DrainLoop::ApplyCommits() {
  for (SessionId id : pipeline_.ApplyCommits(sessions_)) {
    auto session = sessions_.find(id);
    session->second->segment().Unlink();
    counters_.segments_removed.fetch_add(1);
    admission_.Release(session->second->segment().shm_name());
    sessions_.erase(session);
  }
}

void DrainLoop::RefreshLevels() {
  levels_dirty_.store(true);
  Wake();
}

std::optional<std::vector<LiveProducer>> DrainLoop::LiveProducers() {
  return Call<std::vector<LiveProducer>>([this] {
    std::vector<LiveProducer> out;
    for (auto& [id, s] : sessions_) {
      if (!s->finished()) out.push_back(levels_.LevelsOf(*s));
    }
    return out;
  });
}

std::optional<std::optional<std::vector<OpenOpView>>> DrainLoop::OpenOps(SessionId id, size_t max) {
  return Call<std::optional<std::vector<OpenOpView>>>(
      [this, id, max]() -> std::optional<std::vector<OpenOpView>> {
        auto it = sessions_.find(id);
        if (it == sessions_.end() || it->second->finished()) return std::nullopt;
        std::vector<OpenOpView> out;
        for (const HalfOp& h : it->second->correlator().OpenLaunches(max)) {
          out.push_back(
              {h, dictionary_.Text(h.name), dictionary_.Text(h.tag), dictionary_.Text(h.srcloc)});
        }
        return out;
      });
}

std::optional<uint32_t> DrainLoop::ApplyLevelChange(const LevelChange& change) {
  return Call<uint32_t>([this, change] {
    const uint32_t reached = levels_.Apply(change, sessions_);
    levels_dirty_.store(true);  // the control segment's default too
    return reached;
  });
}

std::optional<DrainStatus> DrainLoop::LiveStatus() {
  return Call<DrainStatus>([this] {
    DrainStatus st;
    st.default_level = levels_.EffectiveDefaultLevel();
    for (auto& [id, s] : sessions_) {
      ++st.attached_segments;
      if (s->finished()) continue;
      ++st.running_sessions;
      st.live_sessions.push_back(s->record().id);
      const SessionRecord& r = s->record();
      st.drops.dropped_ring_full += s->reader_stats().events_dropped_ring_full;
      st.drops.dropped_no_ring += s->reader_stats().events_dropped_no_ring;
      st.drops.dropped_shed += r.dropped_shed;
      st.drops.dropped_daemon_restart += r.dropped_daemon_restart;
      st.drops.dropped_invalid += r.dropped_invalid;
      st.drops.strings_dropped += s->reader_stats().strings_dropped;
      st.drops.names_capped += s->reader_stats().names_capped;
    }
    st.events_per_second = rate_.EventsPerSecond();
    return st;
  });
}

void DrainLoop::Shutdown() {
  const uint64_t now = ClockNowNs(CLOCK_MONOTONIC);
  DrainAll(now);
  FinishExited(now);
  // Store everything read, waiting for the writer if it is behind.
  for (int attempt = 0; attempt < 50; ++attempt) {
    pipeline_.CutSoon();
    if (!pipeline_.Cut(now, sessions_)) break;
    store_->Flush(100);
  }
  if (!store_->Flush(10'000)) LogWarning("shutdown: the writer did not finish within 10 s");
  ApplyCommits();
  // Detach: producers may set their own level again, and know at exit that
  // no daemon is attached.
  for (auto& [id, s] : sessions_) {
    if (!s->finished()) s->segment().WriteDaemonPresence(0, now);
  }
  LogInfo("drain loop stopped: {} sessions detached", sessions_.size());
}

}  // namespace optrace::daemon
