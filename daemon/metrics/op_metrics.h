// OpMetrics: per op series (an op name and the other labels of
// metrics_labels), how many spans were stored, their self time and a
// histogram of their durations, counted as the writer commits batches,
// for the metrics endpoint (optrace_ops_total, optrace_op_self_seconds_total,
// optrace_op_duration_seconds).
#ifndef OPTRACE_DAEMON_METRICS_OP_METRICS_H_
#define OPTRACE_DAEMON_METRICS_OP_METRICS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "metrics/duration_buckets.h"
#include "metrics/metrics_text.h"
#include "metrics/op_series_labels.h"
#include "storage/committed_batch_observer.h"

namespace optrace::daemon {

// The cardinality caps (config metrics_max_names_per_session and
// metrics_max_series). A session may give at most `names_per_session`
// distinct label sets series of their own, and all sessions together at
// most `series` series; spans past either cap are counted in an overflow
// series whose name (and tag) is "other" (those are not counted in the
// caps).
struct OpMetricsLimits {
  uint64_t names_per_session = 200;
  uint64_t series = 2000;
};

// How the registry is set up.
struct OpMetricsOptions {
  OpMetricsLimits limits;
  OpLabelSet labels;
  // A series no running session counts in any more is dropped this long
  // after the last of them ended (config metrics_series_grace).
  int64_t ended_grace_ns = int64_t{300} * 1'000'000'000;
  // The clock of that grace, in ns (CLOCK_MONOTONIC when empty).
  std::function<int64_t()> now_ns;
};

// One series: its label values and totals. A label that is not in the
// registry's set is left empty (0). Value type.
struct OpSeries {
  std::string name;  // cut to kMaxLabelValueBytes (UTF-8 safe); "other" for an overflow
  uint8_t target = 0;
  std::string tag;  // cut likewise; "other" for an overflow
  SessionId session = 0;
  std::string process;
  uint32_t pid = 0;
  uint64_t spans = 0;        // spans of every status
  uint64_t ok_spans = 0;     // spans with a known duration: the histogram's count
  uint64_t ok_sum_ns = 0;    // their durations
  uint64_t self_sum_ns = 0;  // their self times (duration less children on the thread)
  std::array<uint64_t, kDurationEdges + 1> buckets{};  // not cumulative; last = above every edge
};

// The registry. A series is created on its label set's first span and
// kept while a running session counts in it, so that its counters are
// monotonic and a name that has a series keeps it while its process
// lives (counts exact); once the last such session has ended it is kept
// for the grace period, then dropped (a later span of that label set
// starts it again at 0, which Prometheus reads as a counter reset). The
// caps bound the series at any time. Label values are the dictionary's
// texts cut to kMaxLabelValueBytes: two names with the same first bytes
// share a series, as do sessions with the same names unless a per-session
// label is in the set.
// Thread rules: OnResumedStrings and OnCommitted on the writer thread,
// Series and WriteTo on any thread; one mutex, held per batch and while
// copying the series.
class OpMetrics : public CommittedBatchObserver {
 public:
  explicit OpMetrics(OpMetricsOptions options);

  void OnResumedStrings(std::span<const std::pair<StringId, std::string>> strings) override;
  void OnCommitted(const StoreBatch& batch) override;

  // A copy of every series, in creation order.
  std::vector<OpSeries> Series() const;

  // Appends the families optrace_ops_total, optrace_op_self_seconds_total,
  // optrace_op_duration_seconds, optrace_op_series and
  // optrace_op_series_overflow_total to `out`.
  void WriteTo(MetricsText* out) const;

 private:
  // A series with its escaped label text (written before every sample
  // of it) and who counts in it.
  struct Entry {
    OpSeries values;
    std::string label_text;
    uint64_t created = 0;        // creation order
    uint64_t running_users = 0;  // running sessions that count spans in it
    int64_t idle_since_ns = 0;   // when running_users last fell to 0
    bool overflow = false;       // an "other" series (not counted in the caps)
  };
  // What tells one session's series apart: the span's name, tag (0 unless
  // the tag is a label) and target.
  struct SpanKey {
    StringId name = 0;
    StringId tag = 0;
    uint8_t target = 0;
    bool operator==(const SpanKey&) const = default;
  };
  struct SpanKeyHash {
    size_t operator()(const SpanKey& key) const;
  };
  // What one running session has: its process's label values and the
  // series its spans count in.
  struct SessionSeries {
    std::string process;
    uint32_t pid = 0;
    std::unordered_map<SpanKey, Entry*, SpanKeyHash> by_key;
    std::unordered_set<Entry*> used;  // each counted once in its running_users
    uint64_t own_series = 0;          // label sets that got a series of their own
  };

  // The entry `span` of `session` counts in. REQUIRES: mu_ held.
  Entry* EntryFor(SessionId id, SessionSeries& session, const Span& span);
  // The entry of `values`, created when missing. REQUIRES: mu_ held.
  Entry* EntryWith(const OpSeries& values, bool overflow);
  // The label text of `values` in the registry's label order.
  std::string LabelTextOf(const OpSeries& values) const;
  // The dictionary's (cut) text of `id`, "" for 0 or an unknown id.
  // REQUIRES: mu_ held.
  const std::string& TextOf(StringId id) const;
  // Records the process of a session record. REQUIRES: mu_ held.
  void NoteSession(const SessionRecord& record);
  // Ends a session's claim on its series. REQUIRES: mu_ held.
  void EndSession(SessionId id, int64_t now_ns);
  // Drops the series idle past the grace. REQUIRES: mu_ held.
  void DropIdleSeries(int64_t now_ns) const;
  int64_t Now() const;

  const OpMetricsOptions options_;
  mutable std::mutex mu_;
  std::unordered_map<StringId, std::string> texts_;        // GUARDED_BY(mu_): cut texts
  std::unordered_map<SessionId, SessionSeries> sessions_;  // GUARDED_BY(mu_)
  // Keyed by label text. Mutable: a scrape drops the idle series.
  mutable std::unordered_map<std::string, Entry> entries_;  // GUARDED_BY(mu_)
  mutable uint64_t named_series_ = 0;                       // GUARDED_BY(mu_): not overflow
  uint64_t overflow_pairs_ = 0;                             // GUARDED_BY(mu_)
  uint64_t next_created_ = 0;                               // GUARDED_BY(mu_)
  mutable int64_t last_drop_ns_ = 0;                        // GUARDED_BY(mu_)
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_METRICS_OP_METRICS_H_
