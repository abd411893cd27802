#include "query/session_steps.h"

#include <algorithm>
#include <limits>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/flat_id_map.h"
#include "optrace/abi.h"
#include "query/duration_math.h"
#include "query/duration_percentiles.h"
#include "query/recorded_steps.h"
#include "query/step_detection.h"
#include "query/step_explanation.h"
#include "query/step_judgement.h"
#include "storage/op_aggregate.h"
#include "wire/string_cache.h"

namespace optrace::daemon {
namespace {

// A session's steps with what each holds, in step order.
struct SessionSteps {
  DetectedSteps detected;
  std::vector<bool> trimmed;                     // listed from a step record, spans gone
  uint64_t folded = 0;                           // step records the store's bound dropped
  std::vector<uint64_t> ops;                     // OK spans begun in each (0 when trimmed)
  std::vector<std::vector<OpSelfTime>> op_self;  // each step's ops, by name then tag
  std::vector<StepVerdict> verdicts;
};

uint64_t DurationOf(const StepInterval& step) {
  return step.end_ns > step.start_ns ? static_cast<uint64_t>(step.end_ns - step.start_ns) : 0;
}

constexpr uint32_t kNoStep = std::numeric_limits<uint32_t>::max();

// The index of the step that holds an op begun at `start_ns`: the latest
// begun at or before it, if it has not ended; kNoStep otherwise. `hint`,
// the previous answer, makes ops in start order cost no search.
uint32_t StepOf(const std::vector<StepInterval>& steps, int64_t start_ns, uint32_t& hint) {
  auto holds = [&](size_t i) {
    return steps[i].start_ns <= start_ns &&
           (i + 1 == steps.size() || steps[i + 1].start_ns > start_ns);
  };
  size_t latest = 0;
  if (hint != kNoStep && holds(hint)) {
    latest = hint;
  } else if (hint != kNoStep && hint + 1 < steps.size() && holds(hint + 1)) {
    latest = hint + 1;
  } else {
    const auto after = std::upper_bound(
        steps.begin(), steps.end(), start_ns,
        [](int64_t start, const StepInterval& step) { return start < step.start_ns; });
    if (after == steps.begin()) return kNoStep;
    latest = static_cast<size_t>(after - steps.begin()) - 1;
  }
  hint = static_cast<uint32_t>(latest);
  return start_ns < steps[latest].end_ns ? hint : kNoStep;
}

// The counter samples under spans that number steps: a ProfilerStep#
// range's, and a marked range's (kStepRangeMarkName), the first of each
// span. Each counter name's text is read once.
Result<StepNumbers> ReadStepNumbers(SpanReader& reader, SessionId session, StringCache& strings) {
  enum class CounterKind : uint8_t { kOther, kProfiler, kRangeMark };
  FlatIdMap<CounterKind> kinds;  // counter name -> what it numbers
  StepNumbers numbers;
  Status read = reader.ForEachInstant(session, [&](const Instant& instant) {
    if (instant.kind != static_cast<uint8_t>(abi::EventKind::kCounter) ||
        instant.parent_op_id == 0) {
      return true;
    }
    const CounterKind* known = kinds.Find(instant.name);
    if (known == nullptr) {
      const std::string& text = strings.Get(instant.name);
      known = &kinds.Insert(instant.name, text == kProfilerStepName    ? CounterKind::kProfiler
                                          : text == kStepRangeMarkName ? CounterKind::kRangeMark
                                                                       : CounterKind::kOther);
    }
    if (*known == CounterKind::kProfiler) {
      numbers.profiler.try_emplace(instant.parent_op_id, instant.value);
    } else if (*known == CounterKind::kRangeMark) {
      numbers.ranges.try_emplace(instant.parent_op_id, instant.value);
    }
    return true;
  });
  if (!read.ok()) return read;
  return numbers;
}

// Two passes over a session's stored OK spans (after its counters): the
// first finds the spans that mark steps, the second sums each step's ops
// once the steps are known. Nothing is kept per span: memory grows with
// the steps and the ops in each. Borrows `strings`, which must outlive it.
// REQUIRES (each pass): the caller holds a snapshot of the reader.
class StepSpanPasses {
 public:
  explicit StepSpanPasses(StringCache& strings) : strings_(strings) {}

  // The session's steps: its step counters (ReadStepNumbers), then the
  // first pass and DetectSteps.
  Result<DetectedSteps> FindSteps(SpanReader& reader, SessionId session) {
    Result<StepNumbers> numbers = ReadStepNumbers(reader, session, strings_);
    if (!numbers.ok()) return numbers.status();
    numbers_ = std::move(numbers.value());
    Result<bool> complete = ReadMarkers(reader, session);
    if (!complete.ok()) return complete.status();
    if (!complete.value()) {
      return Status::ResourceExhausted("session " + std::to_string(session) + " has more than " +
                                       std::to_string(kMaxStepSpans) +
                                       " spans, more than one steps query reads");
    }
    return DetectSteps(std::move(markers_), first_op_start_ns_, numbers_);
  }

  // FindSteps merged with the session's step records (MergeRecordedSteps).
  Result<MergedSteps> FindAllSteps(SpanReader& reader, SessionId session) {
    Result<DetectedSteps> found = FindSteps(reader, session);
    if (!found.ok()) return found.status();
    Result<SessionStepRecords> records = reader.StepRecords(session);
    if (!records.ok()) return records.status();
    return MergeRecordedSteps(std::move(found).value(), records.value());
  }

  // The second pass: each OK span that began in a step of `steps` is one of
  // its ops (the spans that are steps themselves are not; optimizer
  // ranges, which only end steps, are). A trimmed step keeps none: what
  // is left of its ops is not all of them.
  Status ReadStepOps(SpanReader& reader, SessionId session, SessionSteps& steps) {
    const std::vector<StepInterval>& intervals = steps.detected.steps;
    steps.ops.assign(intervals.size(), 0);
    steps.op_self.assign(intervals.size(), {});
    if (intervals.empty()) return Status::Ok();
    uint32_t hint = kNoStep;
    Status scanned =
        ForEachOkSpan(reader, session,
                      span_page::kOpId | span_page::kName | span_page::kTag | span_page::kStartNs |
                          span_page::kDurationNs | span_page::kChildrenNs,
                      [&](const Span& span) {
                        const StepMarkerKind kind = KindOf(span);
                        if (kind != StepMarkerKind::kNone && kind != StepMarkerKind::kOptimizer)
                          return true;
                        const uint32_t step = StepOf(intervals, span.start_ns, hint);
                        if (step == kNoStep) return true;
                        ++steps.ops[step];
                        OpEntry& entry = EntryOf(span);
                        std::vector<OpSelfTime>& ops = steps.op_self[step];
                        // Spans mostly come in start order, one step after the other: an
                        // op met again in an earlier step gets a second entry there,
                        // merged below.
                        if (entry.step != step) {
                          entry.step = step;
                          entry.slot = static_cast<uint32_t>(ops.size());
                          ops.push_back({span.name, span.tag, 0});
                        }
                        OpSelfTime& op = ops[entry.slot];
                        op.self_ns = AddCapped(op.self_ns, std::min(SelfNs(span), kMaxAggregateNs));
                        return true;
                      });
    if (!scanned.ok()) return scanned;
    for (size_t i = 0; i < intervals.size(); ++i) {
      if (steps.trimmed[i]) {
        steps.ops[i] = 0;
        steps.op_self[i].clear();
      }
    }
    for (std::vector<OpSelfTime>& ops : steps.op_self) MergeByOp(ops);
    return Status::Ok();
  }

 private:
  // The first pass; false when there are more than kMaxStepSpans spans.
  Result<bool> ReadMarkers(SpanReader& reader, SessionId session) {
    uint64_t spans = 0;
    Status scanned = ForEachOkSpan(
        reader, session,
        span_page::kOpId | span_page::kName | span_page::kStartNs | span_page::kDurationNs,
        [&](const Span& span) {
          if (++spans > kMaxStepSpans) return false;
          first_op_start_ns_ = std::min(first_op_start_ns_, span.start_ns);
          const StepMarkerKind kind = KindOf(span);
          if (kind == StepMarkerKind::kNone) return true;
          markers_.push_back({span.op_id, span.start_ns, span.duration_ns, span.name, kind});
          return true;
        });
    if (!scanned.ok()) return scanned;
    return spans <= kMaxStepSpans;
  }

  // Where an op (name and tag) was last summed: the step and its slot there.
  struct OpEntry {
    uint32_t step = kNoStep;
    uint32_t slot = 0;
  };

  template <typename Visit>
  static Status ForEachOkSpan(SpanReader& reader, SessionId session, span_page::ColumnSet columns,
                              Visit&& visit) {
    return reader.ForEachSpanPage(
        session, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
        [&](std::span<const Span> page) {
          for (const Span& span : page) {
            if (span.status == SpanStatus::kOk && !visit(span)) return false;
          }
          return true;
        },
        columns | span_page::kStatus);
  }

  // Sorts a step's ops by name, then tag, summing the entries of one op.
  static void MergeByOp(std::vector<OpSelfTime>& ops) {
    std::sort(ops.begin(), ops.end(), [](const OpSelfTime& a, const OpSelfTime& b) {
      return a.name != b.name ? a.name < b.name : a.tag < b.tag;
    });
    size_t kept = 0;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (kept > 0 && ops[kept - 1].name == ops[i].name && ops[kept - 1].tag == ops[i].tag) {
        ops[kept - 1].self_ns = AddCapped(ops[kept - 1].self_ns, ops[i].self_ns);
      } else {
        ops[kept++] = ops[i];
      }
    }
    ops.resize(kept);
  }

  OpEntry& EntryOf(const Span& span) {
    const uint64_t key = static_cast<uint64_t>(span.name) << 32 | span.tag;
    if (OpEntry* entry = entries_.Find(key)) return *entry;
    return entries_.Insert(key, OpEntry{});
  }

  // The kind of `span` (kOpId and kName read): by its name, else a marked
  // range by its op id.
  StepMarkerKind KindOf(const Span& span) {
    const StepMarkerKind* by_name = kinds_.Find(span.name);
    const StepMarkerKind kind =
        by_name != nullptr ? *by_name
                           : kinds_.Insert(span.name, StepMarkerKindOf(strings_.Get(span.name)));
    if (kind == StepMarkerKind::kNone && !numbers_.ranges.empty() &&
        numbers_.ranges.contains(span.op_id)) {
      return StepMarkerKind::kMarkedRange;
    }
    return kind;
  }

  StringCache& strings_;
  StepNumbers numbers_;
  FlatIdMap<StepMarkerKind> kinds_;  // name -> its kind
  FlatIdMap<OpEntry> entries_;       // name << 32 | tag -> where it was last summed
  std::vector<StepMarker> markers_;
  int64_t first_op_start_ns_ = std::numeric_limits<int64_t>::max();
};

Result<SessionSteps> ReadSessionSteps(SpanReader& reader, SessionId session,
                                      const v1::StepRules& rules, StringCache& strings) {
  Result<SqliteTransaction> snapshot = reader.Snapshot();
  if (!snapshot.ok()) return snapshot.status();
  const SpanReader::ScratchScope scratch(reader);  // one set of page buffers for every pass
  StepSpanPasses passes(strings);
  Result<MergedSteps> found = passes.FindAllSteps(reader, session);
  if (!found.ok()) return found.status();
  SessionSteps steps;
  steps.detected = std::move(found->detected);
  steps.trimmed = std::move(found->trimmed);
  steps.folded = found->folded;
  if (Status read = passes.ReadStepOps(reader, session, steps); !read.ok()) return read;
  std::vector<uint64_t> durations;
  durations.reserve(steps.detected.steps.size());
  for (const StepInterval& step : steps.detected.steps) durations.push_back(DurationOf(step));
  steps.verdicts = JudgeSteps(durations, rules);
  if (!strings.status().ok()) return strings.status();
  return steps;
}

// The op with the most self time of a step's ops; nullptr when none.
const OpSelfTime* TopOp(const std::vector<OpSelfTime>& ops) {
  const auto top = std::max_element(
      ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.self_ns < b.self_ns; });
  return top == ops.end() ? nullptr : &*top;
}

// The index of step `number` of `steps`, or kNotFound naming the
// session's steps (or saying how to record some when it has none).
Result<size_t> IndexOfStep(const std::vector<StepInterval>& steps, uint64_t number,
                           SessionId session) {
  if (steps.empty()) {
    return Status::NotFound(
        "session " + std::to_string(session) +
        " has no steps: record them with optrace.step() (or optrace_step_begin, optrace::Step), "
        "or run a PyTorch optimizer under optrace run --torch");
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].number == number) return i;
  }
  return Status::NotFound("session " + std::to_string(session) + " has no step " +
                          std::to_string(number) + " (its steps are numbered " +
                          std::to_string(steps.front().number) + " to " +
                          std::to_string(steps.back().number) + ")");
}

// kFailedPrecondition when step `index` of `steps` is trimmed (its spans
// are gone, so its ops cannot be named); OK otherwise.
Status CheckNotTrimmed(const std::vector<StepInterval>& steps, const std::vector<bool>& trimmed,
                       size_t index, SessionId session) {
  if (!trimmed[index]) return Status::Ok();
  return Status::FailedPrecondition(
      "step " + std::to_string(steps[index].number) + " of session " + std::to_string(session) +
      ": its spans were trimmed by the rolling window; only its start and duration are kept "
      "(optrace steps lists it as trimmed)");
}

// The up to kBaselineNeighbours steps nearest `target` that are neither
// slow, warm-up nor trimmed, nearest first (before, then after, at each
// distance).
std::vector<size_t> NeighbourSteps(const SessionSteps& steps, size_t target) {
  std::vector<size_t> chosen;
  const size_t count = steps.verdicts.size();
  auto usable = [&](size_t i) {
    return !steps.verdicts[i].slow && !steps.verdicts[i].warmup && !steps.trimmed[i];
  };
  for (size_t distance = 1; distance < count && chosen.size() < kBaselineNeighbours; ++distance) {
    if (distance <= target && usable(target - distance)) chosen.push_back(target - distance);
    if (chosen.size() == kBaselineNeighbours) break;
    if (target + distance < count && usable(target + distance)) {
      chosen.push_back(target + distance);
    }
  }
  return chosen;
}

void FillExplanation(const SessionSteps& steps, size_t target, const std::vector<size_t>& baseline,
                     StringCache& strings, v1::ExplainStepResponse* response) {
  const StepInterval& step = steps.detected.steps[target];
  std::vector<uint64_t> durations;
  std::vector<std::vector<OpSelfTime>> baseline_ops;
  for (size_t i : baseline) {
    durations.push_back(DurationOf(steps.detected.steps[i]));
    baseline_ops.push_back(steps.op_self[i]);
    response->add_baseline_steps(steps.detected.steps[i].number);
  }
  const uint64_t duration = DurationOf(step);
  const uint64_t baseline_ns = MedianOf(durations);
  const uint64_t extra = duration > baseline_ns ? duration - baseline_ns : 0;
  response->set_step(step.number);
  response->set_duration_ns(duration);
  response->set_baseline_ns(baseline_ns);
  response->set_extra_ns(extra);
  response->set_slow(steps.verdicts[target].slow);
  response->set_warmup(steps.verdicts[target].warmup);
  double cumulative = 0;
  for (const OpExtraTime& op : RankExtraTime(steps.op_self[target], baseline_ops, extra)) {
    v1::StepOpExtra* out = response->add_ops();
    const double share = Ratio(static_cast<double>(op.extra_ns), static_cast<double>(extra));
    cumulative += share;
    out->set_name(strings.Get(op.name));
    out->set_tag(strings.Get(op.tag));
    out->set_self_ns(op.self_ns);
    out->set_baseline_ns(op.baseline_ns);
    out->set_extra_ns(op.extra_ns);
    out->set_share(share);
    out->set_cumulative_share(cumulative);
    out->set_only_in_step(op.only_in_step);
  }
}

}  // namespace

Result<StepStartRange> FindStepStartRange(SpanReader& reader, SessionId session, uint64_t number,
                                          StringCache& strings) {
  const SpanReader::ScratchScope scratch(reader);
  StepSpanPasses passes(strings);
  Result<MergedSteps> found = passes.FindAllSteps(reader, session);
  if (!found.ok()) return found.status();
  const std::vector<StepInterval>& steps = found->detected.steps;
  Result<size_t> index = IndexOfStep(steps, number, session);
  if (!index.ok()) return index.status();
  if (Status kept = CheckNotTrimmed(steps, found->trimmed, index.value(), session); !kept.ok()) {
    return kept;
  }
  if (!strings.status().ok()) return strings.status();
  const size_t i = index.value();
  int64_t end = steps[i].end_ns;
  if (i + 1 < steps.size()) end = std::min(end, steps[i + 1].start_ns);
  // `end` is exclusive; a step that holds no time holds no span.
  return StepStartRange{steps[i].start_ns,
                        end == std::numeric_limits<int64_t>::min() ? end : end - 1};
}

Status GetSteps(SpanReader& reader, const v1::GetStepsRequest& request,
                v1::GetStepsResponse* response) {
  Result<v1::StepRules> rules = CompleteStepRules(request.rules(), "rules");
  if (!rules.ok()) return rules.status();
  if (request.limit() > kMaxStepsListed) {
    return Status::InvalidArgument("limit " + std::to_string(request.limit()) +
                                   " is more than the most steps listed, " +
                                   std::to_string(kMaxStepsListed));
  }
  StringCache strings(reader);
  Result<SessionSteps> steps =
      ReadSessionSteps(reader, request.session_id(), rules.value(), strings);
  if (!steps.ok()) return steps.status();
  const std::vector<StepInterval>& intervals = steps->detected.steps;
  response->Clear();
  response->set_source(steps->detected.source);
  *response->mutable_rules() = rules.value();
  response->set_steps_total(intervals.size());
  response->set_steps_folded(steps->folded);
  const size_t limit = request.limit() == 0 ? kMaxStepsListed : request.limit();
  const size_t first_listed = intervals.size() > limit ? intervals.size() - limit : 0;
  std::vector<uint64_t> judged;
  uint64_t slow = 0;
  for (size_t i = 0; i < intervals.size(); ++i) {
    const StepVerdict& verdict = steps->verdicts[i];
    slow += verdict.slow ? 1 : 0;
    if (!verdict.warmup) judged.push_back(DurationOf(intervals[i]));
    if (i < first_listed) continue;
    v1::Step* out = response->add_steps();
    out->set_number(intervals[i].number);
    out->set_start_unix_ns(intervals[i].start_ns);
    out->set_duration_ns(DurationOf(intervals[i]));
    out->set_ops(steps->ops[i]);
    if (const OpSelfTime* top = TopOp(steps->op_self[i]); top != nullptr) {
      out->set_top_op(strings.Get(top->name));
      out->set_top_op_tag(strings.Get(top->tag));
      out->set_top_op_self_ns(top->self_ns);
    }
    out->set_slow(verdict.slow);
    out->set_warmup(verdict.warmup);
    out->set_baseline_ns(verdict.baseline_ns);
    out->set_trimmed(steps->trimmed[i]);
  }
  response->set_slow_steps(slow);
  const DurationPercentiles percentiles = ComputePercentiles(judged);
  response->set_p50_ns(percentiles.p50);
  response->set_p95_ns(percentiles.p95);
  response->set_p99_ns(percentiles.p99);
  return strings.status();
}

Status ExplainStep(SpanReader& reader, const v1::ExplainStepRequest& request,
                   v1::ExplainStepResponse* response) {
  Result<v1::StepRules> rules = CompleteStepRules(request.rules(), "rules");
  if (!rules.ok()) return rules.status();
  StringCache strings(reader);
  const SessionId session = request.session_id();
  Result<SessionSteps> steps = ReadSessionSteps(reader, session, rules.value(), strings);
  if (!steps.ok()) return steps.status();
  Result<size_t> target = IndexOfStep(steps->detected.steps, request.step(), session);
  if (!target.ok()) return target.status();
  if (Status kept = CheckNotTrimmed(steps->detected.steps, steps->trimmed, target.value(), session);
      !kept.ok()) {
    return kept;
  }
  std::vector<size_t> baseline;
  if (request.has_baseline_step()) {
    Result<size_t> chosen = IndexOfStep(steps->detected.steps, request.baseline_step(), session);
    if (!chosen.ok()) return chosen.status();
    if (Status kept =
            CheckNotTrimmed(steps->detected.steps, steps->trimmed, chosen.value(), session);
        !kept.ok()) {
      return kept;
    }
    if (chosen.value() == target.value()) {
      return Status::InvalidArgument("baseline_step " + std::to_string(request.baseline_step()) +
                                     " is the step explained: compare it with another step");
    }
    baseline.push_back(chosen.value());
  } else {
    baseline = NeighbourSteps(steps.value(), target.value());
    if (baseline.empty()) {
      return Status::NotFound(
          "session " + std::to_string(session) + " has no step to compare step " +
          std::to_string(request.step()) +
          " with (every other step is slow or warm-up): name one with baseline_step");
    }
  }
  response->Clear();
  FillExplanation(steps.value(), target.value(), baseline, strings, response);
  return strings.status();
}

}  // namespace optrace::daemon
