// Which labels the op series of the metrics endpoint carry (config
// metrics_labels): always the op's name, and any of its target, its tag,
// and the process it ran in (session id, process name, pid).
#ifndef OPTRACE_DAEMON_METRICS_OP_SERIES_LABELS_H_
#define OPTRACE_DAEMON_METRICS_OP_SERIES_LABELS_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace optrace::daemon {

// One label of an op series. The label's name in the exposition is its
// word (OpLabelWord).
enum class OpLabel : uint8_t {
  kName,     // the op's name
  kTarget,   // cpu, gpu, ...
  kTag,      // the op's summary tag ("" when it has none)
  kSession,  // the daemon's session id
  kProcess,  // the session's label (OPTRACE_SESSION), else its executable's file name
  kPid,      // the producer's pid, as the producer gives it
};

// "name", "target", "tag", "session", "process" or "pid".
std::string_view OpLabelWord(OpLabel label);

// The labels of every op series, in the order they are written. A value
// type; the default is {name, target}.
class OpLabelSet {
 public:
  OpLabelSet();

  // The set named by `words` (config metrics_labels), in their order.
  // Errors: kInvalidArgument naming the word when one is not a label's
  // word or comes twice, or when "name" is missing (a series is an op's).
  static Result<OpLabelSet> Parse(std::span<const std::string> words);

  bool Has(OpLabel label) const;
  // Whether a series belongs to one session (session, process or pid is
  // a label): such series end with their session.
  bool PerSession() const;
  const std::vector<OpLabel>& labels() const { return labels_; }

 private:
  explicit OpLabelSet(std::vector<OpLabel> labels) : labels_(std::move(labels)) {}

  std::vector<OpLabel> labels_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_METRICS_OP_SERIES_LABELS_H_
