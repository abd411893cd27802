#include "metrics/op_series_labels.h"

#include <algorithm>
#include <utility>

namespace optrace::daemon {
namespace {

constexpr OpLabel kAllLabels[] = {OpLabel::kName,    OpLabel::kTarget,  OpLabel::kTag,
                                  OpLabel::kSession, OpLabel::kProcess, OpLabel::kPid};

std::string KnownWords() {
  std::string out;
  for (const OpLabel label : kAllLabels) {
    if (!out.empty()) out += ", ";
    out += OpLabelWord(label);
  }
  return out;
}

}  // namespace

std::string_view OpLabelWord(OpLabel label) {
  switch (label) {
    case OpLabel::kName:
      return "name";
    case OpLabel::kTarget:
      return "target";
    case OpLabel::kTag:
      return "tag";
    case OpLabel::kSession:
      return "session";
    case OpLabel::kProcess:
      return "process";
    case OpLabel::kPid:
      return "pid";
  }
  return "name";
}

OpLabelSet::OpLabelSet() : labels_{OpLabel::kName, OpLabel::kTarget} {}

Result<OpLabelSet> OpLabelSet::Parse(std::span<const std::string> words) {
  std::vector<OpLabel> labels;
  for (const std::string& word : words) {
    const auto* known = std::find_if(std::begin(kAllLabels), std::end(kAllLabels),
                                     [&](OpLabel label) { return OpLabelWord(label) == word; });
    if (known == std::end(kAllLabels)) {
      return Status::InvalidArgument("metrics_labels: \"" + word + "\" is not a label (" +
                                     KnownWords() + ")");
    }
    if (std::find(labels.begin(), labels.end(), *known) != labels.end()) {
      return Status::InvalidArgument("metrics_labels: \"" + word + "\" is given twice");
    }
    labels.push_back(*known);
  }
  if (std::find(labels.begin(), labels.end(), OpLabel::kName) == labels.end()) {
    return Status::InvalidArgument("metrics_labels: \"name\" is required (a series is an op's)");
  }
  return OpLabelSet(std::move(labels));
}

bool OpLabelSet::Has(OpLabel label) const {
  return std::find(labels_.begin(), labels_.end(), label) != labels_.end();
}

bool OpLabelSet::PerSession() const {
  return Has(OpLabel::kSession) || Has(OpLabel::kProcess) || Has(OpLabel::kPid);
}

}  // namespace optrace::daemon
