// OpMetrics: per op name and target, how many spans were stored and a
// histogram of their durations, counted as the writer commits batches, for
// the metrics endpoint (optrace_ops_total, optrace_op_duration_seconds).
#ifndef OPTRACE_DAEMON_METRICS_OP_METRICS_H_
#define OPTRACE_DAEMON_METRICS_OP_METRICS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "metrics/duration_buckets.h"
#include "metrics/metrics_text.h"
#include "storage/committed_batch_observer.h"

namespace optrace::daemon {

// The cardinality caps (config metrics_max_names_per_session and
// metrics_max_series). A session may give at most `names_per_session`
// distinct (name, target) pairs series of their own, and all sessions
// together at most `series` series; spans past either cap are counted in
// their target's name="other" series (those are not counted in the caps).
struct OpMetricsLimits {
  uint64_t names_per_session = 200;
  uint64_t series = 2000;
};

// One series: a (name, target) pair's totals. Value type.
struct OpSeries {
  std::string name;  // cut to kMaxLabelValueBytes (UTF-8 safe); "other" for the overflow
  uint8_t target = 0;
  uint64_t spans = 0;     // spans of every status
  uint64_t ok_spans = 0;  // spans with a known duration: the histogram's count
  uint64_t ok_sum_ns = 0;
  std::array<uint64_t, kDurationEdges + 1> buckets{};  // not cumulative; last = above every edge
};

// The registry. Series are created on a (name, target)'s first span and
// kept for the daemon's life, so that every counter is monotonic and a
// name that has a series keeps it (counts exact); the global cap bounds
// them. Names are series by their text cut to kMaxLabelValueBytes: two
// names with the same first bytes share a series, as do sessions with
// the same name. A session's own bookkeeping (which of its names have
// series, a map entry per name) is dropped when a batch ends the session.
// Thread rules: OnResumedStrings and OnCommitted on the writer thread,
// Series and WriteTo on any thread; one mutex, held per batch and while
// copying the series.
class OpMetrics : public CommittedBatchObserver {
 public:
  explicit OpMetrics(OpMetricsLimits limits) : limits_(limits) {}

  void OnResumedStrings(std::span<const std::pair<StringId, std::string>> strings) override;
  void OnCommitted(const StoreBatch& batch) override;

  // A copy of every series, in creation order.
  std::vector<OpSeries> Series() const;

  // Appends the families optrace_ops_total, optrace_op_duration_seconds
  // and optrace_op_series_overflow_total to `out`.
  void WriteTo(MetricsText* out) const;

 private:
  // What one running session has: its (name, target) pairs' series.
  struct SessionSeries {
    std::unordered_map<uint64_t, size_t> by_name_target;  // (name << 8 | target) -> index
    uint64_t own_names = 0;                               // pairs that got a series
  };

  // The series `span` of `session` counts in. REQUIRES: mu_ held.
  size_t SeriesFor(SessionSeries& session, const Span& span);
  // The series of (name text, target), created when missing. REQUIRES: mu_ held.
  size_t SeriesNamed(const std::string& name, uint8_t target);

  const OpMetricsLimits limits_;
  mutable std::mutex mu_;
  std::unordered_map<StringId, std::string> names_;             // GUARDED_BY(mu_): cut texts
  std::unordered_map<SessionId, SessionSeries> sessions_;       // GUARDED_BY(mu_)
  std::map<std::pair<std::string, uint8_t>, size_t> by_label_;  // GUARDED_BY(mu_)
  std::vector<OpSeries> series_;                                // GUARDED_BY(mu_)
  uint64_t named_series_ = 0;                                   // GUARDED_BY(mu_): not "other"
  uint64_t overflow_pairs_ = 0;                                 // GUARDED_BY(mu_)
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_METRICS_OP_METRICS_H_
