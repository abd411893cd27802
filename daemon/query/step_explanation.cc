#include "query/step_explanation.h"

#include <algorithm>

#include "query/step_judgement.h"

namespace optrace::daemon {
namespace {

bool SameOp(const OpSelfTime& a, const OpSelfTime& b) { return a.name == b.name && a.tag == b.tag; }

// The op's extra time against the median of its self times in `baselines`.
OpExtraTime ExtraOf(const OpSelfTime& op, std::span<const std::vector<OpSelfTime>> baselines) {
  std::vector<uint64_t> times;
  times.reserve(baselines.size());
  bool anywhere = false;
  for (const std::vector<OpSelfTime>& baseline : baselines) {
    const auto it = std::find_if(baseline.begin(), baseline.end(),
                                 [&](const OpSelfTime& b) { return SameOp(b, op); });
    anywhere |= it != baseline.end();
    times.push_back(it == baseline.end() ? 0 : it->self_ns);
  }
  OpExtraTime extra{op.name, op.tag, op.self_ns, MedianOf(times), 0, !anywhere};
  if (extra.self_ns > extra.baseline_ns) extra.extra_ns = extra.self_ns - extra.baseline_ns;
  return extra;
}

bool LargerExtra(const OpExtraTime& a, const OpExtraTime& b) {
  if (a.extra_ns != b.extra_ns) return a.extra_ns > b.extra_ns;
  if (a.name != b.name) return a.name < b.name;
  return a.tag < b.tag;
}

}  // namespace

std::vector<OpExtraTime> RankExtraTime(std::span<const OpSelfTime> step,
                                       std::span<const std::vector<OpSelfTime>> baselines,
                                       uint64_t extra_ns) {
  std::vector<OpExtraTime> grown;
  for (const OpSelfTime& op : step) {
    OpExtraTime extra = ExtraOf(op, baselines);
    if (extra.extra_ns > 0) grown.push_back(extra);
  }
  std::sort(grown.begin(), grown.end(), LargerExtra);
  std::vector<OpExtraTime> ranked;
  const double wanted = kExplainedShare * static_cast<double>(extra_ns);
  double named = 0;
  size_t i = 0;
  for (; i < grown.size() && extra_ns > 0 && named < wanted; ++i) {
    named += static_cast<double>(grown[i].extra_ns);
    ranked.push_back(grown[i]);
  }
  for (; i < grown.size(); ++i) {
    if (grown[i].only_in_step) ranked.push_back(grown[i]);
  }
  return ranked;
}

}  // namespace optrace::daemon
