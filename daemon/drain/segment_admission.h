// Which segments become sessions: attaches a named segment that validates
// (a new session, or the continuation of one a previous daemon left
// running) while its uid has fewer than max_segments_per_uid attached,
// remembers segments that failed validation (never retried, a bounded
// list), that are still initialising (retried with a backoff) or that wait
// for their uid's room, removes leftovers that will never be read, and
// closes the sessions a previous daemon left running whose segment is
// gone.
#ifndef OPTRACE_DAEMON_DRAIN_SEGMENT_ADMISSION_H_
#define OPTRACE_DAEMON_DRAIN_SEGMENT_ADMISSION_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "drain/batch_pipeline.h"
#include "drain/bounded_name_set.h"
#include "drain/daemon_counters.h"
#include "drain/producer_session.h"
#include "drain/retry_schedule.h"
#include "drain/uid_segment_quota.h"
#include "optrace/reader/attached_segment.h"
#include "storage/span_reader.h"
#include "storage/span_store.h"
#include "strings/string_dictionary.h"

namespace optrace::daemon {

// Thread rules: the drain thread only. `reader`, `dictionary`, `listener`
// (may be null) and `counters` must outlive it.
class SegmentAdmission {
 public:
  struct Options {
    std::string shm_folder = "/dev/shm";
    reader::AttachPolicy attach;
    ProducerSession::Limits limits;
    // Segments of one uid attached at once (max_segments_per_uid); the
    // others wait until one of that uid's sessions ends.
    uint32_t max_segments_per_uid = 256;
    // Rejected names remembered; beyond, the oldest is forgotten (counted
    // in `segments_rejected_forgotten`) and validated again if seen again.
    size_t max_rejected_names = 16384;
    // The backoff of segments still initialising or unreadable.
    RetrySchedule::Delays retry;
  };

  // A segment that became a session.
  struct Admitted {
    std::unique_ptr<ProducerSession> session;
    bool resumed = false;  // continues a session a previous daemon stored
  };

  SegmentAdmission(Options options, SpanReader* reader, StringDictionary* dictionary,
                   LiveEventListener* listener, DaemonCounters* counters);

  // The sessions a previous daemon left running, and where ids go on.
  // REQUIRES: before the first TryAttach.
  void Resume(ResumeState resume);

  // Attaches `name` unless it is attached already, was rejected or waits
  // for its uid's room; `now_ns` is CLOCK_MONOTONIC. A segment whose uid
  // has max_segments_per_uid attached is not opened: it waits (counted
  // once in `segments_deferred_uid_cap`) until one of them is Released. A
  // segment that fails validation is rejected for good (counted in
  // `segments_rejected`, logged); one still initialising, or that cannot
  // be opened now (out of file descriptors), is scheduled for RetryDue; one
  // whose session is already stored is removed; one whose stored session
  // cannot be looked up (a read error) is logged once and scheduled, never
  // taken for a new session.
  std::optional<Admitted> TryAttach(const std::string& name, uint64_t now_ns);

  // The names a full scan of the shm folder found (`present`): forgets
  // every remembered name that is not among them (its file is gone), then
  // tries each present name that is not scheduled for a retry, handing each
  // that attaches to `adopt` at once.
  void Scanned(const std::vector<std::string>& present, uint64_t now_ns,
               const std::function<void(Admitted)>& adopt);

  // Tries the segments waiting for a uid that has room now, and the
  // scheduled ones whose delay has passed at `now_ns`, handing each that
  // attaches to `adopt` at once; removes those still initialising whose
  // producer is gone (they will never be ready).
  void RetryDue(uint64_t now_ns, const std::function<void(Admitted)>& adopt);

  // Closes the sessions from Resume that did not attach (their process
  // ended while no daemon ran and removed its segment), as
  // ProducerSession::CloseOrphan does, and submits each in a batch of its
  // own through `pipeline`. Consumes the resume state, but for the
  // sessions whose segment is there and scheduled for a retry.
  void CloseOrphans(BatchPipeline* pipeline);

  // The session of segment `name` is gone: the name may attach again, and
  // its uid has room for one more.
  void Release(const std::string& name);

 private:
  const Options options_;
  SpanReader* const reader_;
  StringDictionary* const dictionary_;
  LiveEventListener* const listener_;
  DaemonCounters* const counters_;
  ResumeState resume_;
  SessionId next_session_id_ = 1;
  // A name rejected for good: counted, and remembered (while there is room).
  void Reject(const std::string& name);
  // Stops retrying `name`.
  void Unschedule(const std::string& name);

  std::map<std::string, uint32_t> attached_;  // each attached name's uid
  UidSegmentQuota quota_;
  BoundedNameSet rejected_;  // failed validation or already stored: never retried
  RetrySchedule retry_;      // every name to try again, when
  std::set<std::string>
      not_ready_;  // of those, still initialising (removed once its producer is gone)
  std::set<std::string> unresolved_;  // of those, the store could not say if it is stored
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_DRAIN_SEGMENT_ADMISSION_H_
