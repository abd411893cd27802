// Which segments become sessions: attaches a named segment that validates
// (a new session, or the continuation of one a previous daemon left
// running), remembers segments that failed validation (never retried) or
// are still initialising (retried), removes leftovers that will never be
// read, and closes the sessions a previous daemon left running whose
// segment is gone.
#ifndef OPTRACE_DAEMON_DRAIN_SEGMENT_ADMISSION_H_
#define OPTRACE_DAEMON_DRAIN_SEGMENT_ADMISSION_H_

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "drain/batch_pipeline.h"
#include "drain/daemon_counters.h"
#include "drain/producer_session.h"
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

  // Attaches `name` unless it is attached already or was rejected. A
  // segment that fails validation is rejected for good (counted in
  // `segments_rejected`, logged); one still initialising is kept for
  // RetryNotReady; one whose session is already stored is removed; one
  // whose stored session cannot be looked up (a read error) is logged once
  // and kept for RetryNotReady, never taken for a new session.
  std::optional<Admitted> TryAttach(const std::string& name);

  // Tries the segments still initialising, or whose stored session could
  // not be looked up, again, handing each that attaches to `adopt` at
  // once; removes those still initialising whose producer is gone (they
  // will never be ready).
  void RetryNotReady(const std::function<void(Admitted)>& adopt);

  // Closes the sessions from Resume that did not attach (their process
  // ended while no daemon ran and removed its segment), as
  // ProducerSession::CloseOrphan does, and submits each in a batch of its
  // own through `pipeline`. Consumes the resume state.
  void CloseOrphans(BatchPipeline* pipeline);

  // The session of segment `name` is gone: the name may attach again.
  void Release(const std::string& name) { attached_.erase(name); }

 private:
  const Options options_;
  SpanReader* const reader_;
  StringDictionary* const dictionary_;
  LiveEventListener* const listener_;
  DaemonCounters* const counters_;
  ResumeState resume_;
  SessionId next_session_id_ = 1;
  std::set<std::string> attached_;
  std::set<std::string> rejected_;    // failed validation or already stored: never retried
  std::set<std::string> not_ready_;   // still initialising: retried
  std::set<std::string> unresolved_;  // the store could not say if it is stored: retried
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_DRAIN_SEGMENT_ADMISSION_H_
