#include "metrics/op_metrics.h"

#include <fmt/format.h>

#include "common/op_line.h"
#include "optrace/abi.h"

namespace optrace::daemon {
namespace {

constexpr std::string_view kOtherName = "other";
constexpr double kNsPerSecond = 1e9;

std::string CutName(std::string_view text) {
  return std::string(CutUtf8(text, kMaxLabelValueBytes));
}

}  // namespace

void OpMetrics::OnResumedStrings(std::span<const std::pair<StringId, std::string>> strings) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, text] : strings) names_.emplace(id, CutName(text));
}

void OpMetrics::OnCommitted(const StoreBatch& batch) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, text] : batch.new_strings) names_.emplace(id, CutName(text));
  for (const SessionSpans& entry : batch.spans) {
    SessionSeries& session = sessions_[entry.session];
    for (const Span& span : entry.spans) {
      OpSeries& series = series_[SeriesFor(session, span)];
      ++series.spans;
      if (const auto ns = KnownDuration(span)) {
        ++series.ok_spans;
        series.ok_sum_ns += *ns;
        ++series.buckets[DurationBucketOf(*ns)];
      }
    }
  }
  for (const SessionRecord& record : batch.sessions) {
    if (record.state != SessionState::kRunning) sessions_.erase(record.id);
  }
}

size_t OpMetrics::SeriesFor(SessionSeries& session, const Span& span) {
  const uint64_t key = (uint64_t{span.name} << 8) | span.target;
  if (auto it = session.by_name_target.find(key); it != session.by_name_target.end()) {
    return it->second;
  }
  // First span of this pair in the session: a series of its own while
  // both caps allow, else its target's "other". Remembered either way, so
  // that the pair's later spans cost one lookup and never move.
  size_t index = 0;
  const auto name = names_.find(span.name);
  const std::string text = name != names_.end() ? name->second : "unknown";
  const auto existing = by_label_.find({text, span.target});
  if (session.own_names < limits_.names_per_session &&
      (existing != by_label_.end() || named_series_ < limits_.series)) {
    index = SeriesNamed(text, span.target);
    ++session.own_names;
  } else {
    index = SeriesNamed(std::string(kOtherName), span.target);
    ++overflow_pairs_;
  }
  session.by_name_target.emplace(key, index);
  return index;
}

size_t OpMetrics::SeriesNamed(const std::string& name, uint8_t target) {
  const auto [it, added] = by_label_.try_emplace({name, target}, series_.size());
  if (added) {
    OpSeries series;
    series.name = name;
    series.target = target;
    series_.push_back(std::move(series));
    if (name != kOtherName) ++named_series_;
  }
  return it->second;
}

std::vector<OpSeries> OpMetrics::Series() const {
  std::lock_guard<std::mutex> lock(mu_);
  return series_;
}

void OpMetrics::WriteTo(MetricsText* out) const {
  uint64_t overflow = 0;
  std::vector<OpSeries> series;
  {
    std::lock_guard<std::mutex> lock(mu_);
    series = series_;
    overflow = overflow_pairs_;
  }
  // About 28 lines of 100 bytes a series, with its name.
  out->Reserve(series.size() * 3000);
  out->Family("optrace_ops_total", "counter",
              "Spans stored per op name and target, every status (incomplete ones included).");
  for (const OpSeries& s : series) {
    const std::string_view target = TargetKindName(static_cast<abi::TargetKind>(s.target));
    out->Sample("optrace_ops_total", {{"name", s.name}, {"target", target}}, s.spans);
  }
  out->Family("optrace_op_duration_seconds", "histogram",
              "Durations (LAUNCH to COMPLETE) of the stored spans with a known duration, per op "
              "name and target.");
  static const std::array<std::string, kDurationEdges> kLe = [] {
    std::array<std::string, kDurationEdges> le;
    for (size_t i = 0; i < kDurationEdges; ++i) {
      le[i] = fmt::format("{}", static_cast<double>(DurationEdgeNs(i)) / kNsPerSecond);
    }
    return le;
  }();
  for (const OpSeries& s : series) {
    const std::string labels = MetricsText::LabelText(
        {{"name", s.name}, {"target", TargetKindName(static_cast<abi::TargetKind>(s.target))}});
    uint64_t cumulative = 0;
    for (size_t i = 0; i < kDurationEdges; ++i) {
      cumulative += s.buckets[i];
      out->SampleWithLabelText("optrace_op_duration_seconds_bucket", labels, kLe[i], cumulative);
    }
    out->SampleWithLabelText("optrace_op_duration_seconds_bucket", labels, "+Inf", s.ok_spans);
    out->Sample(
        "optrace_op_duration_seconds_sum",
        {{"name", s.name}, {"target", TargetKindName(static_cast<abi::TargetKind>(s.target))}},
        static_cast<double>(s.ok_sum_ns) / kNsPerSecond);
    out->SampleWithLabelText("optrace_op_duration_seconds_count", labels, "", s.ok_spans);
  }
  out->Family("optrace_op_series_overflow_total", "counter",
              "(session, name, target) pairs counted in name=\"other\" because a series cap was "
              "reached.");
  out->Sample("optrace_op_series_overflow_total", {}, overflow);
}

}  // namespace optrace::daemon
