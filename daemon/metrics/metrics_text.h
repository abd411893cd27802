// The Prometheus text exposition format (version 0.0.4): how the metrics
// endpoint writes families, samples and label values.
#ifndef OPTRACE_DAEMON_METRICS_METRICS_TEXT_H_
#define OPTRACE_DAEMON_METRICS_METRICS_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace optrace::daemon {

// The Content-Type of the format.
inline constexpr std::string_view kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

// Label values (op names from any producer, up to 4 KiB) are cut to this
// many bytes before they are escaped.
inline constexpr size_t kMaxLabelValueBytes = 128;

// The longest prefix of `text` of at most `max_bytes` bytes that does not
// end inside a UTF-8 sequence (bytes that are not UTF-8 are cut as bytes).
std::string_view CutUtf8(std::string_view text, size_t max_bytes);

// `value` as the format requires inside a label's quotes: backslash,
// double quote and line feed escaped (\\ \" \n), every other byte as it is.
std::string EscapeLabelValue(std::string_view value);

// One label of a sample. `value` is raw (escaped when written).
struct MetricLabel {
  std::string_view name;  // REQUIRES: [a-zA-Z_][a-zA-Z0-9_]*
  std::string_view value;
};

// Builds one exposition: families (HELP and TYPE lines) followed by their
// samples. Metric and label names are the daemon's own constants, label
// values are untrusted and escaped here. Thread rules: a value type.
class MetricsText {
 public:
  MetricsText() = default;
  // Writes into `buffer`, emptied first: its room stays, so a buffer kept
  // from the last scrape is written again without growing.
  explicit MetricsText(std::string buffer) : out_(std::move(buffer)) { out_.clear(); }

  // Starts a family. `type` is counter, gauge or histogram; `help` is one
  // line (a backslash or line feed in it is escaped).
  void Family(std::string_view name, std::string_view type, std::string_view help);

  // One sample line: name{labels} value.
  void Sample(std::string_view name, std::initializer_list<MetricLabel> labels, uint64_t value);
  void Sample(std::string_view name, std::initializer_list<MetricLabel> labels, double value);

  // `labels` as a sample writes them between its braces, escaped: for a
  // writer of many samples of one label set (a histogram's buckets), which
  // then escapes each value once.
  static std::string LabelText(std::initializer_list<MetricLabel> labels);

  // One sample line: name{label_text} value, or name{label_text,le="le"}
  // value when `le` is not "". REQUIRES: `label_text` from LabelText, not "".
  void SampleWithLabelText(std::string_view name, std::string_view label_text, std::string_view le,
                           uint64_t value);
  void SampleWithLabelText(std::string_view name, std::string_view label_text, std::string_view le,
                           double value);

  // `value` as a sample writes it: the shortest text that reads back as
  // the same double, +Inf, -Inf or NaN.
  static std::string NumberText(double value);

  // Makes room for `bytes` more of text (a scrape is megabytes: growing
  // it by doubling copies and faults in every page again).
  void Reserve(size_t bytes) { out_.reserve(out_.size() + bytes); }

  // The text so far (ends with a line feed when not empty).
  const std::string& text() const { return out_; }

  // Moves the text out; the builder is left empty.
  std::string Take() { return std::move(out_); }

 private:
  void SampleStart(std::string_view name, std::initializer_list<MetricLabel> labels);
  void SampleStartWithLabelText(std::string_view name, std::string_view label_text,
                                std::string_view le);
  // Appends `value` and a line feed.
  void EndSample(uint64_t value);
  void EndSample(double value);

  std::string out_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_METRICS_METRICS_TEXT_H_
