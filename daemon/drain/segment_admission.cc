#include "drain/segment_admission.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <unordered_set>

#include "common/clock_now.h"
#include "common/producer_lock.h"
#include "common/segment_name.h"
#include "log/log.h"

namespace optrace::daemon {
namespace {

// How long after its last change (mtime: creation, then sizing) a segment
// still initialising may go without its liveness lock before its producer
// is taken for gone: a producer takes the lock right after creating the
// file, within microseconds.
constexpr time_t kUnlockedGraceSeconds = 2;

// Whether the initialising segment at `path` was left by a producer that
// died before finishing it: nobody holds its liveness lock (a producer in
// another PID namespace, whose pid means nothing here, holds it while it
// runs), it has been so for the grace period, and the pid in its `name`
// does not exist (a producer older than the lock).
bool LeftByDeadProducer(const std::string& path, const SegmentName& name) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;  // gone already, or not ours to judge
  struct stat st {};
  const bool stat_ok = ::fstat(fd, &st) == 0;
  const ProducerLockState lock = ProbeProducerLock(fd);
  ::close(fd);
  if (!stat_ok || lock == ProducerLockState::kHeld) return false;
  if (::time(nullptr) - st.st_mtime < kUnlockedGraceSeconds) return false;
  return ::kill(static_cast<pid_t>(name.pid), 0) != 0 && errno == ESRCH;
}

}  // namespace

SegmentAdmission::SegmentAdmission(Options options, SpanReader* reader,
                                   StringDictionary* dictionary, LiveEventListener* listener,
                                   DaemonCounters* counters)
    : options_(std::move(options)),
      reader_(reader),
      dictionary_(dictionary),
      listener_(listener),
      counters_(counters),
      quota_(options_.max_segments_per_uid),
      rejected_(options_.max_rejected_names),
      retry_(options_.retry) {}

void SegmentAdmission::Resume(ResumeState resume) {
  resume_ = std::move(resume);
  next_session_id_ = resume_.max_session_id + 1;
}

void SegmentAdmission::Reject(const std::string& name) {
  if (rejected_.Insert(name)) counters_->segments_rejected_forgotten.fetch_add(1);
}

void SegmentAdmission::Unschedule(const std::string& name) {
  retry_.Remove(name);
  not_ready_.erase(name);
  unresolved_.erase(name);
}

std::optional<SegmentAdmission::Admitted> SegmentAdmission::TryAttach(const std::string& name,
                                                                      uint64_t now_ns) {
  if (attached_.count(name) != 0 || rejected_.Contains(name) || quota_.Waiting(name)) {
    return std::nullopt;
  }
  // A session the last daemon left running continues whatever its uid
  // holds (the last daemon held it within the bound).
  const auto resumed =
      std::find_if(resume_.running_sessions.begin(), resume_.running_sessions.end(),
                   [&](const SessionRecord& r) { return r.segment_name == name; });
  // Its uid's bound first, before anything is opened: a name that does
  // not parse is rejected by Attach below.
  const auto parsed = SegmentName::Parse(name);
  if (parsed && resumed == resume_.running_sessions.end() && !quota_.HasRoom(parsed->uid)) {
    Unschedule(name);
    if (quota_.Defer(parsed->uid, name)) {
      counters_->segments_deferred_uid_cap.fetch_add(1);
      if (quota_.WaitingOf(parsed->uid) == 1) {
        LogWarning(
            "uid {} has {} segments attached, the cap max_segments_per_uid; {} and any more of "
            "its segments wait until one of them ends",
            parsed->uid, quota_.Attached(parsed->uid), name);
      }
    }
    return std::nullopt;
  }
  auto attached = reader::AttachedSegment::Attach(name, options_.attach);
  if (!attached.ok()) {
    const Status& st = attached.status();
    switch (st.code()) {
      case Status::Code::kNotReady:
        not_ready_.insert(name);
        retry_.Failed(name, now_ns);  // RetryDue tries it again, later each time
        return std::nullopt;
      case Status::Code::kNotFound:
        Unschedule(name);
        return std::nullopt;
      case Status::Code::kIoError:
        // Not the segment's fault (out of file descriptors or memory):
        // not a rejection. Tried again, later each time.
        not_ready_.erase(name);
        if (retry_.Failed(name, now_ns)) LogWarning("{}; will retry", st.message());
        return std::nullopt;
      default:
        Unschedule(name);
        Reject(name);
        counters_->segments_rejected.fetch_add(1);
        LogWarning("rejected segment {}: {}", name, st.message());
        return std::nullopt;
    }
  }
  not_ready_.erase(name);
  std::unique_ptr<reader::AttachedSegment> segment = std::move(attached).value();
  const reader::SegmentGeometry& g = segment->geometry();
  SessionRecord record;
  const std::vector<RingCursor>* cursors = nullptr;
  const std::vector<HalfOp>* halves = nullptr;
  std::optional<SessionRecord> stored;
  if (resumed == resume_.running_sessions.end()) {
    Result<std::optional<SessionRecord>> lookup = reader_->SessionBySegment(name);
    if (!lookup.ok()) {
      // Not knowing is not "not stored": a new session now could be a
      // second one of a stored segment. Try again with the next retry.
      retry_.Failed(name, now_ns);
      if (unresolved_.insert(name).second) {
        LogWarning("segment {}: cannot tell whether its session is stored ({}); will retry", name,
                   lookup.status().message());
      }
      return std::nullopt;
    }
    stored = std::move(lookup).value();
  }
  Unschedule(name);
  if (resumed != resume_.running_sessions.end()) {
    record = *resumed;
    if (auto c = resume_.cursors.find(record.id); c != resume_.cursors.end()) cursors = &c->second;
    if (auto h = resume_.open_halves.find(record.id); h != resume_.open_halves.end())
      halves = &h->second;
  } else {
    // A segment whose session already ended: a daemon stored it and died
    // before removing the segment. Nothing left to read; remove it now.
    if (stored.has_value()) {
      LogInfo("segment {} belongs to session {}, already stored as {}; removing it", name,
              stored->id, SessionStateName(stored->state));
      segment->Unlink();
      Reject(name);
      return std::nullopt;
    }
    record.id = next_session_id_++;
    record.segment_name = name;
    record.pid = g.name.pid;
    record.uid = g.name.uid;
    record.executable = g.executable;
    record.command_line = g.command_line;
    record.label = g.session_label;
    record.start_ns = static_cast<int64_t>(g.created_realtime_ns);
  }
  record.pid_verified = g.pid_verified;
  auto session = std::make_unique<ProducerSession>(std::move(segment), std::move(record),
                                                   dictionary_, listener_, options_.limits);
  if (cursors != nullptr || halves != nullptr) {
    session->Resume(cursors != nullptr ? *cursors : std::vector<RingCursor>{},
                    halves != nullptr ? *halves : std::vector<HalfOp>{});
  }
  attached_.emplace(name, g.name.uid);
  quota_.Take(g.name.uid);
  return Admitted{std::move(session), resumed != resume_.running_sessions.end()};
}

void SegmentAdmission::Scanned(const std::vector<std::string>& present, uint64_t now_ns,
                               const std::function<void(Admitted)>& adopt) {
  const std::unordered_set<std::string> here(present.begin(), present.end());
  const auto gone = [&here](const std::string& name) { return here.count(name) == 0; };
  rejected_.EraseIf(gone);
  quota_.ForgetWaitingIf(gone);
  retry_.RemoveIf(gone);
  std::erase_if(not_ready_, gone);
  std::erase_if(unresolved_, gone);
  for (const std::string& name : present) {
    if (retry_.Contains(name)) continue;  // its backoff decides
    if (auto admitted = TryAttach(name, now_ns)) adopt(std::move(*admitted));
  }
}

void SegmentAdmission::RetryDue(uint64_t now_ns, const std::function<void(Admitted)>& adopt) {
  // Until the room is used or nothing waits: a name that does not attach
  // (a file named for a uid that does not own it fails validation) leaves
  // its room to the next.
  for (auto names = quota_.TakeWaitingWithRoom(); !names.empty();
       names = quota_.TakeWaitingWithRoom()) {
    for (const std::string& name : names) {
      if (auto admitted = TryAttach(name, now_ns)) adopt(std::move(*admitted));
    }
  }
  for (const std::string& name : retry_.Due(now_ns)) {
    if (auto admitted = TryAttach(name, now_ns)) {
      adopt(std::move(*admitted));
      continue;
    }
    if (not_ready_.count(name) == 0) continue;
    // Still not ready and its producer is gone: it died before finishing
    // the segment, which will never be ready. Remove the leftover instead
    // of retrying forever.
    const auto parsed = SegmentName::Parse(name);
    const std::string path = options_.shm_folder + "/" + name;
    if (parsed && LeftByDeadProducer(path, *parsed)) {
      LogWarning("segment {} was never completed by its producer (pid {} is gone); removing it",
                 name, parsed->pid);
      ::unlink(path.c_str());
      Unschedule(name);
    }
  }
}

void SegmentAdmission::Release(const std::string& name) {
  const auto it = attached_.find(name);
  if (it == attached_.end()) return;
  quota_.Give(it->second);
  attached_.erase(it);
}

void SegmentAdmission::CloseOrphans(BatchPipeline* pipeline) {
  // Sessions the last daemon left running whose segment is gone: their
  // process ended while no daemon ran and removed its segment. Close them
  // with what was persisted.
  ResumeState pending;  // what is left of the resume state
  for (const SessionRecord& r : resume_.running_sessions) {
    if (attached_.count(r.segment_name) != 0) continue;
    if (retry_.Contains(r.segment_name)) {
      // Its segment is there but could not be opened yet: it continues
      // the session when it is.
      pending.running_sessions.push_back(r);
      if (auto c = resume_.cursors.find(r.id); c != resume_.cursors.end()) {
        pending.cursors.insert(std::move(*c));
      }
      if (auto h = resume_.open_halves.find(r.id); h != resume_.open_halves.end()) {
        pending.open_halves.insert(std::move(*h));
      }
      continue;
    }
    StoreBatch batch;
    const auto h = resume_.open_halves.find(r.id);
    ProducerSession::CloseOrphan(r,
                                 h != resume_.open_halves.end() ? h->second : std::vector<HalfOp>{},
                                 static_cast<int64_t>(ClockNowNs(CLOCK_REALTIME)), &batch);
    LogInfo("session {} ({}) ended while no daemon ran; closed as crashed", r.id, r.segment_name);
    if (!pipeline->SubmitAlone(std::move(batch))) {
      LogWarning("could not store the end of session {}: writer queue full", r.id);
    }
  }
  resume_ = std::move(pending);  // consumed, but for the segments still to attach
}

}  // namespace optrace::daemon
