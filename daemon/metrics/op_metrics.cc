#include "metrics/op_metrics.h"

#include <time.h>

#include <algorithm>
#include <string_view>

#include "common/op_line.h"
#include "optrace/abi.h"

namespace optrace::daemon {
namespace {

constexpr std::string_view kOtherName = "other";
constexpr double kNsPerSecond = 1e9;
// The idle series are looked for at most this often on the writer's side
// (a scrape always looks).
constexpr int64_t kDropIntervalNs = 1'000'000'000;

std::string CutText(std::string_view text) {
  return std::string(CutUtf8(text, kMaxLabelValueBytes));
}

// The process label of a session: its OPTRACE_SESSION label, else the
// file name of its executable.
std::string ProcessOf(const SessionRecord& record) {
  if (!record.label.empty()) return CutText(record.label);
  const std::string_view executable = record.executable;
  const size_t slash = executable.rfind('/');
  return CutText(slash == std::string_view::npos ? executable : executable.substr(slash + 1));
}

std::string_view TargetOf(const OpSeries& series) {
  return TargetKindName(static_cast<abi::TargetKind>(series.target));
}

}  // namespace

size_t OpMetrics::SpanKeyHash::operator()(const SpanKey& key) const {
  const uint64_t mixed = (uint64_t{key.name} << 32 | key.tag) * 0x9E3779B97F4A7C15ull;
  return static_cast<size_t>(mixed ^ (mixed >> 29) ^ key.target);
}

OpMetrics::OpMetrics(OpMetricsOptions options) : options_(std::move(options)) {}

int64_t OpMetrics::Now() const {
  if (options_.now_ns) return options_.now_ns();
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

void OpMetrics::OnResumedStrings(std::span<const std::pair<StringId, std::string>> strings) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, text] : strings) texts_.emplace(id, CutText(text));
}

void OpMetrics::OnCommitted(const StoreBatch& batch) {
  const int64_t now = Now();
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, text] : batch.new_strings) texts_.emplace(id, CutText(text));
  for (const SessionRecord& record : batch.sessions) NoteSession(record);
  for (const SessionSpans& entry : batch.spans) {
    SessionSeries& session = sessions_[entry.session];
    for (const Span& span : entry.spans) {
      OpSeries& series = EntryFor(entry.session, session, span)->values;
      ++series.spans;
      if (const auto ns = KnownDuration(span)) {
        ++series.ok_spans;
        series.ok_sum_ns += *ns;
        series.self_sum_ns += SelfNs(span);
        ++series.buckets[DurationBucketOf(*ns)];
      }
    }
  }
  for (const SessionRecord& record : batch.sessions) {
    if (record.state != SessionState::kRunning) EndSession(record.id, now);
  }
  if (now - last_drop_ns_ >= kDropIntervalNs) DropIdleSeries(now);
}

void OpMetrics::NoteSession(const SessionRecord& record) {
  if (!options_.labels.PerSession()) return;
  SessionSeries& session = sessions_[record.id];
  session.process = ProcessOf(record);
  session.pid = record.pid;
}

void OpMetrics::EndSession(SessionId id, int64_t now_ns) {
  const auto it = sessions_.find(id);
  if (it == sessions_.end()) return;
  for (Entry* entry : it->second.used) {
    if (--entry->running_users == 0) entry->idle_since_ns = now_ns;
  }
  sessions_.erase(it);
}

void OpMetrics::DropIdleSeries(int64_t now_ns) const {
  last_drop_ns_ = now_ns;
  std::erase_if(entries_, [&](const auto& item) {
    const Entry& entry = item.second;
    const bool drop =
        entry.running_users == 0 && now_ns - entry.idle_since_ns >= options_.ended_grace_ns;
    if (drop && !entry.overflow) --named_series_;
    return drop;
  });
}

const std::string& OpMetrics::TextOf(StringId id) const {
  static const std::string kNone;
  static const std::string kUnknown = "unknown";
  if (id == 0) return kNone;
  const auto it = texts_.find(id);
  return it != texts_.end() ? it->second : kUnknown;
}

OpMetrics::Entry* OpMetrics::EntryFor(SessionId id, SessionSeries& session, const Span& span) {
  const OpLabelSet& labels = options_.labels;
  const SpanKey key{span.name, labels.Has(OpLabel::kTag) ? span.tag : StringId{0}, span.target};
  if (auto it = session.by_key.find(key); it != session.by_key.end()) return it->second;
  // The first span of this label set in the session: a series of its own
  // while both caps allow, else an overflow series. Remembered either
  // way, so that the set's later spans cost one lookup and never move.
  OpSeries values;
  values.name = TextOf(span.name);
  if (values.name.empty()) values.name = "unknown";
  values.target = span.target;
  if (labels.Has(OpLabel::kTag)) values.tag = TextOf(key.tag);
  if (labels.PerSession()) {
    values.session = id;
    values.process = session.process;
    values.pid = session.pid;
  }
  Entry* entry = nullptr;
  const bool exists = entries_.contains(LabelTextOf(values));
  if (session.own_series < options_.limits.names_per_session &&
      (exists || named_series_ < options_.limits.series)) {
    entry = EntryWith(values, false);
    ++session.own_series;
  } else {
    values.name = std::string(kOtherName);
    if (labels.Has(OpLabel::kTag)) values.tag = std::string(kOtherName);
    entry = EntryWith(values, true);
    ++overflow_pairs_;
  }
  session.by_key.emplace(key, entry);
  if (session.used.insert(entry).second) ++entry->running_users;
  return entry;
}

OpMetrics::Entry* OpMetrics::EntryWith(const OpSeries& values, bool overflow) {
  std::string label_text = LabelTextOf(values);
  const auto [it, added] = entries_.try_emplace(label_text);
  Entry& entry = it->second;
  if (added) {
    entry.values = values;
    entry.label_text = std::move(label_text);
    entry.created = next_created_++;
    entry.overflow = overflow || values.name == kOtherName;
    if (!entry.overflow) ++named_series_;
  }
  return &entry;
}

std::string OpMetrics::LabelTextOf(const OpSeries& values) const {
  std::string out;
  for (const OpLabel label : options_.labels.labels()) {
    if (!out.empty()) out += ',';
    out += OpLabelWord(label);
    out += "=\"";
    switch (label) {
      case OpLabel::kName:
        out += EscapeLabelValue(values.name);
        break;
      case OpLabel::kTarget:
        out += TargetOf(values);
        break;
      case OpLabel::kTag:
        out += EscapeLabelValue(values.tag);
        break;
      case OpLabel::kSession:
        out += std::to_string(values.session);
        break;
      case OpLabel::kProcess:
        out += EscapeLabelValue(values.process);
        break;
      case OpLabel::kPid:
        out += std::to_string(values.pid);
        break;
    }
    out += '"';
  }
  return out;
}

std::vector<OpSeries> OpMetrics::Series() const {
  std::vector<std::pair<uint64_t, OpSeries>> ordered;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ordered.reserve(entries_.size());
    for (const auto& [text, entry] : entries_) ordered.emplace_back(entry.created, entry.values);
  }
  std::sort(ordered.begin(), ordered.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<OpSeries> out;
  out.reserve(ordered.size());
  for (auto& [created, series] : ordered) out.push_back(std::move(series));
  return out;
}

void OpMetrics::WriteTo(MetricsText* out) const {
  uint64_t overflow = 0;
  std::vector<Entry> entries;
  {
    std::lock_guard<std::mutex> lock(mu_);
    DropIdleSeries(Now());
    entries.reserve(entries_.size());
    for (const auto& [text, entry] : entries_) entries.push_back(entry);
    overflow = overflow_pairs_;
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.created < b.created; });
  // About 30 lines of 60 bytes and the label text a series.
  size_t bytes = 4096;
  for (const Entry& entry : entries) bytes += 30 * (60 + entry.label_text.size());
  out->Reserve(bytes);
  out->Family("optrace_ops_total", "counter",
              "Spans stored per op series (metrics_labels), every status (incomplete ones "
              "included).");
  for (const Entry& e : entries) {
    out->SampleWithLabelText("optrace_ops_total", e.label_text, "", e.values.spans);
  }
  out->Family("optrace_op_self_seconds_total", "counter",
              "Self time (duration less the children on the same thread) of the stored spans "
              "with a known duration, per op series.");
  for (const Entry& e : entries) {
    out->SampleWithLabelText("optrace_op_self_seconds_total", e.label_text, "",
                             static_cast<double>(e.values.self_sum_ns) / kNsPerSecond);
  }
  out->Family("optrace_op_duration_seconds", "histogram",
              "Durations (LAUNCH to COMPLETE) of the stored spans with a known duration, per op "
              "series.");
  static const std::array<std::string, kDurationEdges> kLe = [] {
    std::array<std::string, kDurationEdges> le;
    for (size_t i = 0; i < kDurationEdges; ++i) {
      le[i] = MetricsText::NumberText(static_cast<double>(DurationEdgeNs(i)) / kNsPerSecond);
    }
    return le;
  }();
  for (const Entry& e : entries) {
    const OpSeries& s = e.values;
    uint64_t cumulative = 0;
    for (size_t i = 0; i < kDurationEdges; ++i) {
      cumulative += s.buckets[i];
      out->SampleWithLabelText("optrace_op_duration_seconds_bucket", e.label_text, kLe[i],
                               cumulative);
    }
    out->SampleWithLabelText("optrace_op_duration_seconds_bucket", e.label_text, "+Inf",
                             s.ok_spans);
    out->SampleWithLabelText("optrace_op_duration_seconds_sum", e.label_text, "",
                             static_cast<double>(s.ok_sum_ns) / kNsPerSecond);
    out->SampleWithLabelText("optrace_op_duration_seconds_count", e.label_text, "", s.ok_spans);
  }
  out->Family("optrace_op_series", "gauge",
              "Op series served now (overflow series included; see metrics_max_series).");
  out->Sample("optrace_op_series", {}, uint64_t{entries.size()});
  out->Family("optrace_op_series_overflow_total", "counter",
              "Label sets of a session counted in an \"other\" series because a series cap was "
              "reached.");
  out->Sample("optrace_op_series_overflow_total", {}, overflow);
}

}  // namespace optrace::daemon
